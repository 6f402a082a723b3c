#pragma once
// ParaView output in VTK's XML formats:
//  - .vti  ImageData: one block of cells with cell-data arrays (h, eta, u, v, c, ...), stored as
//          binary in an appended section (byte order of this machine, UInt64 sizes), raw or
//          zlib-compressed in blocks (VtiEncoding), plus the simulated time as the TimeValue field.
//  - .pvti the parallel header joining the pieces that several ranks wrote into one image.
//  - .pvd  a collection listing each output time's file, rewritten atomically after each
//          output so that ParaView can open it while the run continues or after it was killed.
// Every file is written atomically.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "io/field.hpp"
#include "io/zlib_blocks.hpp"
#include "domain.hpp"

namespace shwa::io {

// How a .vti stores its arrays.
struct VtiEncoding {
  // Every array as this type (Float32: each value rounded to the nearest float); none: each as
  // its field's own type.
  std::optional<ScalarType> type;
  // zlib-compressed in blocks of kZlibBlockBytes (io/zlib_blocks.hpp), in VTK's
  // vtkZLibDataCompressor layout: a header of the block count, the block size, the last block's
  // size where it is shorter (else 0), and each block's compressed size; then the blocks. Raw
  // otherwise.
  bool zlib = false;
  // The threads that compress the blocks (and convert them as they go), the calling thread
  // among them. Raw arrays are written by the calling thread alone.
  Workers workers;
};

// Writes the piece `piece` of the grid `global`; each field holds piece.nx() * piece.ny()
// values, x fastest. For a single rank, piece = {0, nx, 0, ny}.
void write_vti(const std::string& path, const Domain& global, const Extent& piece,
               const std::vector<FieldRef>& fields, double time, const VtiEncoding& encoding = {});

// Writes the header joining `pieces`, written to `piece_files` (paths relative to the .pvti's
// directory). Of `fields` only the names and types are used: those of every piece, or `type`
// where the pieces were written with VtiEncoding::type.
void write_pvti(const std::string& path, const Domain& global, const std::vector<Extent>& pieces,
                const std::vector<std::string>& piece_files, const std::vector<FieldRef>& fields,
                std::optional<ScalarType> type = std::nullopt);

// A .pvd time series.
class PvdCollection {
 public:
  struct Entry {
    double time;
    int part;          // several parts of one time make one data set
    std::string file;  // relative to the .pvd's directory
  };

  // A new collection; nothing is written before the first add().
  explicit PvdCollection(std::string path);
  // Continues the collection at `path` written by an earlier run, keeping its entries up to and
  // including time `up_to` (a restart). A missing file gives an empty collection; a file this
  // class did not write throws InputError.
  static PvdCollection resume(std::string path, double up_to);

  // Appends an entry and rewrites the file.
  void add(double time, const std::string& file, int part = 0);

  const std::vector<Entry>& entries() const { return entries_; }

 private:
  void write() const;

  std::string path_;
  std::vector<Entry> entries_;
};

}  // namespace shwa::io
