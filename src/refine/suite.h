// A suite of benchmarks (suite/<name>/<platform>/, docs/suite.md): which references become
// benchmarks (references whose signatures are within profiling noise of each other are one
// benchmark), the refinement of all of them in one run spread over the machine's GPUs, locking
// each chain's best pair into the suite, and the suite table.
#pragma once

#include <string>
#include <vector>

#include "common/json_io.h"
#include "signature/distance.h"
#include "signature/operator_scope.h"

namespace vxsynth::refine {

// Largest D measured between two single profiles of the same kernel on the H200 (five profiles
// of each of 22 kernels, docs/measurements/h200-gpu.md): references closer than this cannot be
// told apart by profiling, so they are one benchmark.
inline constexpr double kReferenceNoiseD = 0.0102;

struct SuiteReference {
  std::string folder;     // benchmark folder name, e.g. "act-1-linear"
  std::string reference;  // path of its reference.json
  std::string workload, op_kind, kernel_name, shape;
  double share = 0;       // of the workload's GPU time
};

struct SuiteBenchmark {
  std::string name;                   // the representative's folder (the largest share)
  std::string reference;              // its reference.json: the chain's target
  std::vector<SuiteReference> serves; // the representative first, then the merged references
  double share = 0;                   // combined share of the workload's GPU time
  double merge_d = 0;                 // largest D between the representative and a merged reference
  std::string nearest;                // the nearest reference of another benchmark
  double nearest_d = 0;               // D to it: a proxy must be closer than half of this
};

struct SuitePlan {
  std::string dir;  // suite/<name>/<platform>
  double merge_below = kReferenceNoiseD;
  signature::Scope scope = signature::Scope::kKernel;  // what the references' D is taken between
  std::vector<SuiteBenchmark> benchmarks;  // by name
  Json to_json() const;
};

// Reads every <dir>/*/reference.json (InputError naming the file on a bad one; WorkError when
// there is none). References of the same workload and operator kind whose signature D is below
// `merge_below` join the benchmark of the one with the largest share. At operator scope the D is
// between the references' whole calls (two hot kernels of one call are one operator).
SuitePlan plan_suite(const std::string& dir, double merge_below = kReferenceNoiseD,
                     const signature::DistanceConfig& distance = {},
                     signature::Scope scope = signature::Scope::kKernel);

}  // namespace vxsynth::refine
