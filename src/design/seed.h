// Seed designs: the first point of a search, keeping the four fixed properties of a reference
// (engine class, data types, block size, shape). Defaults come from one table keyed by engine
// class and precision (seed_defaults); the geometry is then worked out for the block size.
#pragma once

#include <string>

#include "design/design_point.h"

namespace vxsynth::design {

// The per-(engine, precision) defaults a seed starts from.
struct SeedDefaults {
  Fragment fragment = Fragment::kNone;
  RegisterTile register_tile;  // SIMT outputs per thread, or fragments per warp
  int tile_k = 8;
  Staging staging = Staging::kAB;
  Prefetch prefetch = Prefetch::kNone;
  int vortex_threads = 16;  // threads per Vortex warp
};
SeedDefaults seed_defaults(EngineClass engine, ops::PrecisionPath precision, int block_size);

// A valid seed for `op` (InputError naming `source` when no valid seed exists, e.g. a block
// size that is not a multiple of 32, or an engine class the precision cannot have).
DesignPoint seed_design(const ops::OpSpec& op, EngineClass engine, int block_size, const std::string& reference = "",
                        const std::string& source = "<seed>");

// The same, shaped by what the reference's kernel name documents and its launch confirmed
// (`confirmed`: key, value, note; used = false). A tile is realised by the warp arrangement and
// register tile that give it inside the fixed block size; a property the seed cannot realise
// validly is kept out and recorded with the reason. Every entry ends up in from_kernel_name.
DesignPoint seed_design(const ops::OpSpec& op, EngineClass engine, int block_size, const std::string& reference,
                        const std::string& source, std::vector<KernelNameFact> confirmed);

// The properties of a reference's kernel-name reading (signature.kernel_name_reading) that the
// seed may use: provenance "documented" and check "agrees". Undocumented naming conventions
// ("inferred") and unconfirmed properties are left to the search.
std::vector<KernelNameFact> confirmed_name_properties(const Json& reference, const std::string& file);

// The op of a reference.json (vxsynth.reference/1) as an op spec: kind, shapes, dtypes,
// precision, bias, activation, conv stride/padding/dilation/groups/layout, matmul transposes
// and broadcast batch. InputError names the file and field.
//
// A kernel whose op.kernel_role is "layout_transform" computes a re-layout of one tensor of the
// op it serves: the result is that transform (derive_transform), unless `served_op` asks for the
// served operator itself (the conv1d behind Diffusion Policy's weight transforms).
ops::OpSpec op_spec_from_reference(const Json& reference, const std::string& file, bool served_op = false);

// Which tensor of the served conv a layout-transform kernel re-lays out, and how: the direction
// from the kernel name (nchwToNhwc / nhwcToNchw), the tensor from the profiled launch grid, which
// for cuDNN's 32 x 32-tiled transpose is (ceil(cols/32), ceil(rows/32), transposes) in the
// input's [transposes][rows][cols] view; candidates are the conv's input, weight and output.
// The dtype is the tensors' storage type (a tf32 conv moves fp32). InputError names the file and
// field when the kernel name has no direction or no tensor matches the grid (docs/design-space.md).
ops::OpSpec derive_transform(const Json& reference, const ops::OpSpec& served, const std::string& file);

// seed_design (or seed_transform) with the reference's op, engine class and block size;
// `reference` is the benchmark name (the reference's folder name).
DesignPoint seed_from_reference(const std::string& reference_json_path, bool served_op = false);

}  // namespace vxsynth::design
