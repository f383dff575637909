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

// The op of a reference.json (vxsynth.reference/1) as an op spec: kind, shapes, dtypes,
// precision, bias, activation, conv stride/padding/dilation/groups/layout, matmul transposes
// and broadcast batch. InputError names the file and field.
ops::OpSpec op_spec_from_reference(const Json& reference, const std::string& file);

// seed_design with the reference's op, engine class and block size; `reference` is the
// benchmark name (the reference's folder name).
DesignPoint seed_from_reference(const std::string& reference_json_path);

}  // namespace vxsynth::design
