# Kokkos 3.4's exported package re-creates CUDA::cudart from the properties it had at build time,
# which newer CMake (4.x: several include directories, a cudart_static_deps link item) writes out
# in a form that fails to load. Defining the CUDA toolkit targets first makes it skip that.
# Used by scripts/build-kokkos.sh (CMAKE_PROJECT_INCLUDE, for Kokkos Kernels) and CMakeLists.txt.
find_package(CUDAToolkit REQUIRED)
