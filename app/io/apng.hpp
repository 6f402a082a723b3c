#pragma once
// Animated PNG (APNG) from PNG files: one file that browsers and APNG-aware viewers play as an
// animation, and that any other PNG reader shows as its first frame. The frames are the given
// files' image data, taken over as they are (their IDAT streams become the animation's IDAT and
// fdAT chunks), so nothing is decoded or compressed again where the frames share one size and
// format; a frame of another size or format is decoded and encoded again onto the animation's
// canvas (the largest width and height of the frames, 8-bit RGBA), at its top-left corner, the
// rest transparent.
//
// Layout of the file (the APNG specification's chunks around an ordinary PNG):
//   signature, IHDR (the canvas), acTL (frame count, 0 plays: loop for ever),
//   the first frame's ancillary chunks before its image data (sRGB, gAMA, ...),
//   fcTL 0, IDAT ... (frame 0, also the image of non-animated readers),
//   fcTL, fdAT ... for each later frame, IEND.
// Each fcTL covers the whole canvas with blend op SOURCE (a frame replaces every pixel, its
// transparency included) and dispose op NONE. Sequence numbers run 0, 1, 2, ... over the fcTL and
// fdAT chunks in file order.

#include <cstdint>
#include <string>
#include <vector>

namespace shwa::io {

struct ApngTiming {
  unsigned frame_ms = 500;  // how long each frame shows
  unsigned last_ms = 2000;  // the last frame, before the animation starts again
};

// Writes `path` (atomically) from the PNG files `frames`, in order. Throws OutputError naming a
// frame that is not a whole, valid PNG (bad signature or chunk CRC, no IHDR or IEND) and
// std::invalid_argument for an empty list.
void write_apng(const std::string& path, const std::vector<std::string>& frames, const ApngTiming& timing = {});

}  // namespace shwa::io
