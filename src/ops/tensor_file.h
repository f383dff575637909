// Tensor files (docs/ops.md, "Tensor files"): one file per tensor,
//
//   bytes 0..7    ASCII magic "VXTENSOR"
//   bytes 8..15   uint64 little-endian: header length H
//   bytes 16..    H bytes of UTF-8 JSON, padded with spaces so that 16 + H is a multiple of 64:
//                 {"schema": "vxsynth.tensor/1", "name": ..., "dtype": "float32"|"bfloat16"|
//                  "float16", "shape": [...], "byte_order": "little", "seed": N|null}
//   then          numel * itemsize bytes, row-major, little-endian; nothing after.
//
// Read by C++ (here) and Python (python/vxsynth/tensor_file.py). Poison bits survive unchanged.
#pragma once

#include <string>

#include "ops/tensor.h"

namespace vxsynth::ops {

inline constexpr const char* kTensorFileMagic = "VXTENSOR";
inline constexpr int kTensorFileVersion = 1;

// Writes via a temporary file renamed into place. WorkError when the file cannot be written.
void write_tensor_file(const std::string& path, const Tensor& t);

// InputError naming the file and the field when the magic, header, dtype, shape or data length
// is wrong.
Tensor read_tensor_file(const std::string& path);

}  // namespace vxsynth::ops
