# The output formats that need a library: NetCDF (libnetcdf, through pkg-config) and PNG (libpng,
# which brings zlib). Each is an option of three values:
#   AUTO (default)  built when its library is found; left out, with a message saying so, when not
#   ON              required: configuring fails without the library
#   OFF             left out
# The formats that need no library (VTK, ESRI ASCII) are always built. The result, for the
# directories below this one:
#   SHWA_HAVE_NETCDF, SHWA_HAVE_PNG   TRUE or FALSE
#   PkgConfig::NETCDF, PNG::PNG       the imported targets, where found
# shwa_io exports the compile definitions SHWA_HAVE_NETCDF=0|1 and SHWA_HAVE_PNG=0|1 (app/io/CMakeLists.txt).
# A machine without a library (ours with the GPU has no NetCDF) leaves that format out by itself.

set(SHWA_WITH_NETCDF AUTO CACHE STRING "NetCDF output (libnetcdf): AUTO (if found), ON (required) or OFF")
set_property(CACHE SHWA_WITH_NETCDF PROPERTY STRINGS AUTO ON OFF)
set(SHWA_WITH_PNG AUTO CACHE STRING "PNG output (libpng): AUTO (if found), ON (required) or OFF")
set_property(CACHE SHWA_WITH_PNG PROPERTY STRINGS AUTO ON OFF)

# shwa_format_mode(VAR OUT): OUT = AUTO, ON or OFF from the option's value (any CMake boolean).
function(shwa_format_mode var out)
  string(TOUPPER "${${var}}" v)
  if(v STREQUAL "AUTO" OR v STREQUAL "")
    set(${out} AUTO PARENT_SCOPE)
  elseif(${var})
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()

shwa_format_mode(SHWA_WITH_NETCDF _shwa_netcdf_mode)
set(SHWA_HAVE_NETCDF FALSE)
if(NOT _shwa_netcdf_mode STREQUAL "OFF")
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(NETCDF QUIET IMPORTED_TARGET netcdf)
  endif()
  if(NETCDF_FOUND)
    set(SHWA_HAVE_NETCDF TRUE)
    message(STATUS "shwa: NetCDF output: yes (libnetcdf ${NETCDF_VERSION})")
  elseif(_shwa_netcdf_mode STREQUAL "ON")
    message(FATAL_ERROR "shwa: SHWA_WITH_NETCDF=ON but NetCDF was not found (pkg-config netcdf); install "
                        "libnetcdf-dev and pkg-config, or configure with -DSHWA_WITH_NETCDF=AUTO or OFF")
  else()
    if(NOT PKG_CONFIG_FOUND)
      set(_why "pkg-config not found")
    else()
      set(_why "pkg-config finds no netcdf")
    endif()
    message(STATUS "shwa: NetCDF output: no (${_why}); install libnetcdf-dev and pkg-config and "
                   "reconfigure to build it")
  endif()
else()
  message(STATUS "shwa: NetCDF output: no (SHWA_WITH_NETCDF=OFF)")
endif()

shwa_format_mode(SHWA_WITH_PNG _shwa_png_mode)
set(SHWA_HAVE_PNG FALSE)
if(NOT _shwa_png_mode STREQUAL "OFF")
  find_package(PNG QUIET)  # finds zlib too: PNG::PNG links ZLIB::ZLIB
  if(PNG_FOUND)
    set(SHWA_HAVE_PNG TRUE)
    message(STATUS "shwa: PNG output: yes (libpng ${PNG_VERSION_STRING})")
  elseif(_shwa_png_mode STREQUAL "ON")
    message(FATAL_ERROR "shwa: SHWA_WITH_PNG=ON but libpng (or zlib) was not found; install libpng-dev, "
                        "or configure with -DSHWA_WITH_PNG=AUTO or OFF")
  else()
    message(STATUS "shwa: PNG output: no (libpng or zlib not found); install libpng-dev and reconfigure "
                   "to build it")
  endif()
else()
  message(STATUS "shwa: PNG output: no (SHWA_WITH_PNG=OFF)")
endif()
