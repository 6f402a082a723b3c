// parse_esri_ascii of a raster with one and two workers, three times each:
//   g++ -std=c++17 -O2 -pthread -Iapp -Icore raster-bench.cpp app/io/raster.cpp app/io/text.cpp app/io/atomic_file.cpp
//   ./a.out inputs/estuary_fine/bathymetry.asc
#include "io/raster.hpp"
#include "io/text.hpp"
#include <chrono>
#include <cstdio>
int main(int argc, char** argv) {
  const std::string text = shwa::io::read_text_file(argv[1]);
  for (int rep = 0; rep < 3; ++rep)
    for (int w : {1, 2}) {
      auto t0 = std::chrono::steady_clock::now();
      auto r = shwa::io::parse_esri_ascii(text, "x", {w, nullptr});
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("workers %d: %.3f s (%zu values)\n", w, s, r.v.size());
    }
}
