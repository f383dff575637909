// One point of the design space (design.json, "vxsynth.design/1"): the op it implements, the
// four fixed properties, the Vortex configuration it runs on, and one value per axis.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/engine_class.h"
#include "common/json_io.h"
#include "common/vortex_machine.h"
#include "design/axes.h"
#include "ops/op_spec.h"

namespace vxsynth::design {

inline constexpr const char* kDesignSchemaKind = "design";
inline constexpr int kDesignSchemaVersion = 1;

// The engine class (common/engine_class.h); a design's is never kUnknown.
using ::vxsynth::EngineClass;
std::string to_string(EngineClass e);  // "simt" | "tensor_core" ("unknown")
bool parse(const std::string& s, EngineClass& out);  // "simt", "tensor_core" or "tensor"; not "unknown"

// The properties a refinement never changes (ARCHITECTURE.md): engine class, data types (the
// precision path fixes storage, compute and accumulator types), block size and shape.
struct FixedProperties {
  EngineClass engine = EngineClass::kSimt;
  ops::PrecisionPath precision = ops::PrecisionPath::fp32;
  int block_size = 128;
  ops::GemmView shape;  // the op's GEMM view: batch (matmul batch or conv groups), M, N, K
};

// The Vortex machine a benchmark is written for (common/vortex_machine.h: the same struct the
// simulator's vxsim::Config is made of, so defaults, names and limits are written once); a block
// must fit one core. A seed sizes the machine for its block (seed.cpp).
using VortexConfig = ::vxsynth::VortexMachine;

// A property the reference's kernel name documents and its launch geometry confirmed, and
// whether the seed could use it (the method: such properties shape the seed; undocumented or
// unconfirmed ones are left to the search).
struct KernelNameFact {
  std::string key, value;  // "tile", "32x32x32"
  bool used = false;
  std::string note;  // how the launch agreed, or why the seed could not use it
  bool operator==(const KernelNameFact&) const = default;
};

struct DesignPoint {
  std::string reference;  // the reference benchmark this design serves ("" for a CLI seed)
  std::vector<KernelNameFact> from_kernel_name;  // seeds only: what the kernel name contributed
  ops::OpSpec op;
  FixedProperties fixed;
  VortexConfig vortex;

  // The twelve axes, one field each.
  Staging staging = Staging::kAB;
  ReadOnce read_once = ReadOnce::kDefault;
  LaneMap lane_a = LaneMap::kForward;
  LaneMap lane_b = LaneMap::kForward;
  Tile tile;
  RegisterTile register_tile;
  Prefetch prefetch = Prefetch::kNone;
  Fragment fragment = Fragment::kNone;
  ActivationPlacement activation = ActivationPlacement::kFused;
  int split_k = 1;
  WarpArrangement warps;
  Boundary boundary = Boundary::kGuarded;
  KRange k_range = KRange::kGeneric;

  // Layout-transform family only (design/transform_family.h); kNone for every other family.
  Scale scale = Scale::kNone;

  // Hopper family only (design/hopper_family.h); these defaults for every other family.
  // stages is also the cp.async ring's depth of a prefetch cp_async design (2..8).
  int stages = 1;
  Raster raster = Raster::kNMajor;
  EpilogueStore epilogue_store = EpilogueStore::kDirect;
  Cluster cluster;
  BiasLoad bias_load = BiasLoad::kGlobal;  // written to design.json only for a Hopper design with a bias
  // Written to design.json only when not at these defaults (designs made before these axes
  // existed read and write the same file).
  RegisterSplit register_split = RegisterSplit::kNone;
  int wgmma_in_flight = 1;
  Schedule schedule = Schedule::kGrid;
  Tf32Round tf32_round = Tf32Round::kWorkspace;
  // Hopper family only; written to design.json only when not rows.
  ConsumerLayout consumer_layout = ConsumerLayout::kRows;
  // Layout-transform family only (staged designs); written to design.json and the name only
  // when not predicated.
  ReadGuard read_guard = ReadGuard::kPredicated;
  // Layout-transform family only (staged designs); written to design.json and the name only
  // when not hoisted.
  ParamReads param_reads = ParamReads::kHoisted;
  // GEMM designs with split_k > 1 (outside the Hopper and transform families); written to
  // design.json and the name only when not separate.
  SplitReduce split_reduce = SplitReduce::kSeparate;
  // Hopper family only; written to design.json and the name only when not none.
  Multicast multicast = Multicast::kNone;
  // Layout-transform family only; written to design.json and the name only when not at these.
  IndexType index_type = IndexType::kInt64;
  int entry_reads = 0;
  IndexMath index_math = IndexMath::kTile;

  // SIMT designs only (fragment none, outside the Hopper and transform families); written to
  // design.json only when not strided.
  FragmentLoad fragment_load = FragmentLoad::kStrided;
  SharedPad shared_pad = SharedPad::kNone;
};

// Staged tiles per operand: 2 for double_buffer, pipeline_stages for cp_async (the ring), else 1.
int staged_buffers(const DesignPoint& d);

// Words of one k row of a SIMT shared tile of `rows` rows (shared_pad adds four).
int simt_tile_ld(const DesignPoint& d, int rows);

bool same_axes(const DesignPoint& a, const DesignPoint& b);

// One name per design point, made of its fixed properties and axis values, e.g.
// "linear_fp32_simt_b64_t32x32x8_r4x4_w1x2_sab_ff_pnone_simt_ro-default_sk1_guarded_kgen_fused".
std::string procedural_name(const DesignPoint& d);

// Derived geometry used by validity and both emitters.
struct BlockGeometry {
  int warps = 0;                  // block_size / 32
  int threads_m = 0, threads_n = 0;  // SIMT thread grid over the tile
  int lanes_m = 0, lanes_n = 0;      // SIMT lane grid inside one warp
  int warp_tile_m = 0, warp_tile_n = 0;
};
BlockGeometry block_geometry(const DesignPoint& d);

// Bytes of shared memory one block uses on the CUDA side, and of local memory on Vortex.
std::int64_t cuda_shared_bytes(const DesignPoint& d);
std::int64_t vortex_local_bytes(const DesignPoint& d);
// Leading dimension (elements) of a tensor-core operand tile row, and of the epilogue tile.
int fragment_tile_ld(const DesignPoint& d);
int epilogue_tile_ld(const DesignPoint& d);
// Elements of one staged operand element on the CUDA side (4 for SIMT / tf32 tiles, 2 else).
int cuda_tile_element_bytes(const DesignPoint& d);
// Vortex tensor-core tiles: the unit's tile at 32 threads a warp (16 x 16, k 32 16-bit
// elements), and the row stride (elements) of a Vortex fragment tile in local memory.
inline constexpr int kVortexTensorThreads = 32;
inline constexpr int kVortexTileM = 16, kVortexTileN = 16, kVortexTileK = 32;
int vortex_fragment_tile_ld(const DesignPoint& d);
// CTAs resident on one Vortex core (warps / warps per block).
int vortex_blocks_per_core(const DesignPoint& d);

// design.json. from_json checks the schema, every field and rejects unknown fields; it does
// not run validity (see validity.h) so that an invalid design can be read and explained.
Json design_to_json(const DesignPoint& d);
DesignPoint design_from_json(const Json& j, const std::string& file = "<design>");
DesignPoint read_design(const std::string& path);  // reads and validates (InputError on a broken rule)
void write_design(const std::string& path, const DesignPoint& d);

}  // namespace vxsynth::design
