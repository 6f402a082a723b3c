// Encodes PNG files again with libpng under several filter and zlib settings: the bytes and the
// time an image. Session 38 ran it on the default estuary's 25 quicklooks (before the change):
//   g++ -O2 png-settings.cpp -o png-settings $(pkg-config --cflags --libs libpng) -lz
//   ./png-settings out/estuary/png/depth_00*.png out/estuary/png/concentration_00*.png \
//       out/estuary/png/{hmax,cmax,arrival}.png
#include <png.h>
#include <zlib.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <fstream>
#include <iterator>
#include <string>
struct Mem { std::vector<unsigned char> d; };
static void wr(png_structp p, png_bytep data, png_size_t n) { auto* m = (Mem*)png_get_io_ptr(p); m->d.insert(m->d.end(), data, data + n); }
static void fl(png_structp) {}
int main(int argc, char** argv) {
  std::vector<std::vector<unsigned char>> imgs; std::vector<int> W, H;
  for (int a = 1; a < argc; ++a) {
    png_image im{}; im.version = PNG_IMAGE_VERSION;
    png_image_begin_read_from_file(&im, argv[a]); im.format = PNG_FORMAT_RGBA;
    std::vector<unsigned char> px(PNG_IMAGE_SIZE(im)); png_image_finish_read(&im, nullptr, px.data(), 0, nullptr);
    imgs.push_back(px); W.push_back(im.width); H.push_back(im.height);
  }
  struct Cfg { const char* name; int filters; int level; int strategy; };
  Cfg cfgs[] = {{"all/6", PNG_ALL_FILTERS, 6, Z_FILTERED}, {"none/3", PNG_FILTER_NONE, 3, Z_DEFAULT_STRATEGY},
                {"sub/6", PNG_FILTER_SUB, 6, Z_FILTERED}, {"up/6", PNG_FILTER_UP, 6, Z_FILTERED}, {"sub/3", PNG_FILTER_SUB, 3, Z_FILTERED},
                {"up/3", PNG_FILTER_UP, 3, Z_FILTERED}, {"none/6", PNG_FILTER_NONE, 6, Z_DEFAULT_STRATEGY}, {"up/1", PNG_FILTER_UP, 1, Z_FILTERED},
                {"none/4", PNG_FILTER_NONE, 4, Z_DEFAULT_STRATEGY}, {"none/5", PNG_FILTER_NONE, 5, Z_DEFAULT_STRATEGY}, {"none/7", PNG_FILTER_NONE, 7, Z_DEFAULT_STRATEGY}, {"none/9", PNG_FILTER_NONE, 9, Z_DEFAULT_STRATEGY}, {"none/6f", PNG_FILTER_NONE, 6, Z_FILTERED}};
  for (auto& c : cfgs) {
    size_t bytes = 0; auto t0 = std::chrono::steady_clock::now();
    for (size_t k = 0; k < imgs.size(); ++k) {
      Mem m; png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr); png_infop i = png_create_info_struct(p);
      png_set_write_fn(p, &m, wr, fl);
      png_set_IHDR(p, i, W[k], H[k], 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
      png_set_filter(p, 0, c.filters); png_set_compression_level(p, c.level); png_set_compression_strategy(p, c.strategy);
      png_write_info(p, i);
      for (int r = 0; r < H[k]; ++r) png_write_row(p, imgs[k].data() + size_t(r) * W[k] * 4);
      png_write_end(p, i); png_destroy_write_struct(&p, &i); bytes += m.d.size();
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-10s %8.1f KB %7.1f ms/image\n", c.name, bytes / 1024.0, 1000 * s / imgs.size());
  }
  // simplified default & FAST
  for (int fast = 0; fast < 2; ++fast) {
    size_t bytes = 0; auto t0 = std::chrono::steady_clock::now();
    for (size_t k = 0; k < imgs.size(); ++k) {
      png_image im{}; im.version = PNG_IMAGE_VERSION; im.width = W[k]; im.height = H[k]; im.format = PNG_FORMAT_RGBA; im.flags = fast ? PNG_IMAGE_FLAG_FAST : 0;
      png_alloc_size_t n = PNG_IMAGE_PNG_SIZE_MAX(im); std::vector<unsigned char> b(n);
      png_image_write_to_memory(&im, b.data(), &n, 0, imgs[k].data(), 0, nullptr); bytes += n;
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-10s %8.1f KB %7.1f ms/image\n", fast ? "simpl-fast" : "simpl-def", bytes / 1024.0, 1000 * s / imgs.size());
  }
}
