// Reads vendor kernel names (cuBLAS, cuBLASLt nvjet_*, cuDNN, CUTLASS, legacy cuBLAS/cuDNN)
// into properties: engine class, operand and accumulator types, tile, layout, warps.
//
// Each property says whether its reading is documented (CUTLASS's naming scheme) or inferred
// (cuBLAS/cuDNN names are undocumented; ncu-profiling.md §4). A property is only *kept* when
// measured evidence agrees with it (launch geometry, tensor/FFMA counters); a contradicted
// property becomes unknown, and one nothing could check is reported as unchecked.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/engine_class.h"
#include "common/json_io.h"

namespace vxsynth::signature {

// The engine class is the project's one EngineClass (common/engine_class.h); a reading may
// leave it kUnknown.
using ::vxsynth::EngineClass;
inline std::string_view engine_key(EngineClass e) { return engine_class_name(e); }

enum class Provenance : int { kDocumented, kInferred };
// Whether measured evidence agrees with a property read from the name (not to be confused
// with ops::Check, which names the two equivalence checks).
enum class Agreement : int { kUnchecked, kAgrees, kContradicted };
std::string_view provenance_key(Provenance p);
std::string_view check_key(Agreement c);

struct NameProperty {
  std::string key;    // "engine", "input_type", "accumulator_type", "tile", "warps", ...
  std::string value;  // "tensor_core", "bf16", "128x256x32", "2x2x1", ...
  std::string token;  // the part of the name it was read from
  Provenance provenance = Provenance::kInferred;
  Agreement check = Agreement::kUnchecked;
  std::string check_note;  // what it was checked against
};

struct KernelNameReading {
  std::string family;  // nvjet, cublas_xmma, cudnn_xmma, cutlass2, cutlass3, cublas_legacy, cudnn_legacy,
                       // cudnn_generated, attention, pytorch_native, unknown
  std::vector<NameProperty> properties;

  const NameProperty* find(std::string_view key) const;
  NameProperty* find(std::string_view key);
  // The value of a property that is not contradicted; nullopt if absent or contradicted.
  std::optional<std::string> value(std::string_view key) const;
  EngineClass engine_from_name() const;

  Json to_json() const;
};

KernelNameReading read_kernel_name(std::string_view kernel_name);

// What was measured about one launch, used to check a reading.
struct MeasuredEvidence {
  std::optional<long long> block_size;  // threads per block
  std::optional<long long> grid_size;   // blocks
  std::optional<std::array<long long, 3>> grid_dims;  // gridDim x, y, z, where known
  std::optional<std::array<long long, 3>> cluster_dims;  // thread-block cluster x, y, z (launch__cluster_dim_*), where known
  // Tensor-path ops by source type (sm__ops_path_tensor_src_*), gmma instruction count, and
  // scalar FP32 thread instructions (ffma + fadd + fmul).
  std::optional<double> tensor_ops_bf16, tensor_ops_fp16, tensor_ops_tf32, tensor_ops_fp8;
  std::optional<double> gmma_instructions;
  std::optional<double> fp32_thread_instructions;
  // GEMM view of the problem (from the operator context), to check a tile against the grid.
  struct Problem {
    long long m = 0, n = 0, batch = 1;
  };
  std::optional<Problem> problem;
};

// Engine class decided by the counters when they exist (tensor ops or gmma > 0 means tensor
// core); otherwise nullopt.
std::optional<EngineClass> engine_from_counters(const MeasuredEvidence& ev);

// Checks each property that evidence can speak to and marks it agrees/contradicted.
void reconcile(KernelNameReading& reading, const MeasuredEvidence& ev);

// The engine class to use: counters when available, else the name's (if not contradicted).
struct EngineVerdict {
  EngineClass engine = EngineClass::kUnknown;
  std::string basis;  // "counters", "counters (name agrees)", "name only (unchecked)", ...
};
EngineVerdict decide_engine(const KernelNameReading& reading, const MeasuredEvidence& ev);

}  // namespace vxsynth::signature
