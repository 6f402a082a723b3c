#include "io/zlib_blocks.hpp"

#include <zlib.h>

#include <algorithm>
#include <atomic>

#include "io/error.hpp"

namespace shwa::io {

std::uint64_t ZlibArray::compressed_bytes() const {
  std::uint64_t n = 0;
  for (const auto& b : blocks) n += b.size();
  return n;
}

std::vector<ZlibArray> zlib_compress(const std::vector<ZlibSource>& sources, const Workers& workers,
                                     const std::string& what) {
  std::vector<ZlibArray> arrays(sources.size());
  struct Job {
    std::size_t array;
    std::uint64_t offset, n;  // bytes
  };
  std::vector<Job> jobs;
  for (std::size_t a = 0; a < sources.size(); ++a) {
    arrays[a].bytes = sources[a].bytes;
    arrays[a].blocks.resize(std::size_t(zlib_blocks(sources[a].bytes)));
    for (std::uint64_t offset = 0; offset < sources[a].bytes; offset += kZlibBlockBytes)
      jobs.push_back({a, offset, std::min<std::uint64_t>(kZlibBlockBytes, sources[a].bytes - offset)});
  }
  std::atomic<std::size_t> next{0};
  // Blocks are taken one at a time, as each worker comes free: they compress at different rates.
  run_on_threads(Workers{std::min(workers.count, int(jobs.size())), workers.on_start}, [&](int) {
    try {
      std::vector<unsigned char> scratch, zbuf(compressBound(uLong(kZlibBlockBytes)));
      for (std::size_t j; (j = next.fetch_add(1)) < jobs.size();) {
        const Job& job = jobs[j];
        const void* in = sources[job.array].block(job.offset, job.n, scratch);
        uLongf zbytes = uLongf(zbuf.size());
        const int rc = compress2(zbuf.data(), &zbytes, static_cast<const Bytef*>(in), uLong(job.n), Z_BEST_SPEED);
        if (rc != Z_OK)
          throw OutputError(what + ": cannot write: zlib cannot compress " + sources[job.array].name + " (error " +
                            std::to_string(rc) + ")");
        // Copied out at its size, so that the arrays held until they are written take what they
        // compressed to.
        arrays[job.array].blocks[std::size_t(job.offset / kZlibBlockBytes)].assign(zbuf.data(), zbuf.data() + zbytes);
      }
    } catch (...) {
      next = jobs.size();  // the others stop at their next block
      throw;
    }
  });
  return arrays;
}

bool zlib_inflate(const unsigned char* data, const std::vector<std::uint64_t>& sizes, void* out, std::uint64_t bytes,
                  const Workers& workers) {
  if (sizes.size() != zlib_blocks(bytes)) return false;
  std::vector<std::uint64_t> starts(sizes.size());
  for (std::size_t b = 1; b < sizes.size(); ++b) starts[b] = starts[b - 1] + sizes[b - 1];
  std::atomic<std::size_t> next{0};
  std::atomic<bool> ok{true};
  run_on_threads(Workers{std::min(workers.count, int(sizes.size())), workers.on_start}, [&](int) {
    for (std::size_t b; ok && (b = next.fetch_add(1)) < sizes.size();) {
      const std::uint64_t offset = b * kZlibBlockBytes, n = std::min<std::uint64_t>(kZlibBlockBytes, bytes - offset);
      uLongf got = uLongf(n);
      uLong used = uLong(sizes[b]);
      // The whole block one stream: nothing after its end, nothing short of the values.
      if (uncompress2(static_cast<Bytef*>(out) + offset, &got, data + starts[b], &used) != Z_OK || got != n ||
          used != sizes[b])
        ok = false;
    }
  });
  return ok;
}

}  // namespace shwa::io
