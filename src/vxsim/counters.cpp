#include "vxsim/counters.h"

#include "vxsim/config.h"

namespace vxsynth::vxsim {

const char* op_class_name(OpClass c) {
  switch (c) {
    case OpClass::kAlu: return "alu";
    case OpClass::kFpu: return "fpu";
    case OpClass::kLoad: return "load";
    case OpClass::kStore: return "store";
    case OpClass::kAtomic: return "atomic";
    case OpClass::kSfu: return "sfu";
    case OpClass::kWarpControl: return "warp_control";
    case OpClass::kTensor: return "tensor";
    case OpClass::kCount: break;
  }
  return "unknown";
}

double Counters::active_lane_fraction(uint32_t threads_per_warp) const {
  if (warp_instructions == 0 || threads_per_warp == 0) return 0.0;
  return static_cast<double>(thread_instructions) / (static_cast<double>(warp_instructions) * threads_per_warp);
}

double Counters::lines_per_global_access() const {
  if (global_memory_instructions == 0) return 0.0;
  return static_cast<double>(global_lines_touched) / static_cast<double>(global_memory_instructions);
}

uint64_t Counters::issue_slots() const {
  return warp_instructions - warp_by_class[static_cast<size_t>(OpClass::kTensor)] + tensor_uops;
}

uint64_t Counters::simx_thread_instructions(uint32_t threads_per_warp) const {
  return thread_instructions +
         uint64_t{threads_per_warp} * (tensor_uops - warp_by_class[static_cast<size_t>(OpClass::kTensor)]);
}

double Counters::tensor_issue_share() const {
  const uint64_t slots = issue_slots();
  return slots == 0 ? 0.0 : static_cast<double>(tensor_uops) / static_cast<double>(slots);
}

Counters& Counters::operator+=(const Counters& o) {
  warp_instructions += o.warp_instructions;
  thread_instructions += o.thread_instructions;
  for (size_t i = 0; i < kNumOpClasses; ++i) {
    warp_by_class[i] += o.warp_by_class[i];
    thread_by_class[i] += o.thread_by_class[i];
  }
  global_bytes_read += o.global_bytes_read;
  global_bytes_written += o.global_bytes_written;
  local_bytes_read += o.local_bytes_read;
  local_bytes_written += o.local_bytes_written;
  global_memory_instructions += o.global_memory_instructions;
  global_lines_touched += o.global_lines_touched;
  for (size_t i = 0; i < global_lines_histogram.size(); ++i) global_lines_histogram[i] += o.global_lines_histogram[i];
  local_memory_instructions += o.local_memory_instructions;
  barrier_waits += o.barrier_waits;
  splits += o.splits;
  divergent_splits += o.divergent_splits;
  warps_spawned += o.warps_spawned;
  tensor_uops += o.tensor_uops;
  tensor_flops += o.tensor_flops;
  tensor_int_ops += o.tensor_int_ops;
  return *this;
}

Counters& Counters::operator-=(const Counters& o) {
  warp_instructions -= o.warp_instructions;
  thread_instructions -= o.thread_instructions;
  for (size_t i = 0; i < kNumOpClasses; ++i) {
    warp_by_class[i] -= o.warp_by_class[i];
    thread_by_class[i] -= o.thread_by_class[i];
  }
  global_bytes_read -= o.global_bytes_read;
  global_bytes_written -= o.global_bytes_written;
  local_bytes_read -= o.local_bytes_read;
  local_bytes_written -= o.local_bytes_written;
  global_memory_instructions -= o.global_memory_instructions;
  global_lines_touched -= o.global_lines_touched;
  for (size_t i = 0; i < global_lines_histogram.size(); ++i) global_lines_histogram[i] -= o.global_lines_histogram[i];
  local_memory_instructions -= o.local_memory_instructions;
  barrier_waits -= o.barrier_waits;
  splits -= o.splits;
  divergent_splits -= o.divergent_splits;
  warps_spawned -= o.warps_spawned;
  tensor_uops -= o.tensor_uops;
  tensor_flops -= o.tensor_flops;
  tensor_int_ops -= o.tensor_int_ops;
  return *this;
}

namespace {
// {"1": count, "4": count, ...}: non-zero buckets only.
Json lines_histogram(const Counters& c) {
  Json h = Json::object();
  for (size_t k = 0; k < c.global_lines_histogram.size(); ++k) {
    if (c.global_lines_histogram[k] != 0) h[std::to_string(k)] = c.global_lines_histogram[k];
  }
  return h;
}

Json one(const Counters& c, uint32_t threads) {
  Json j;
  j["warp_instructions"] = c.warp_instructions;
  j["thread_instructions"] = c.thread_instructions;
  j["active_lane_fraction"] = c.active_lane_fraction(threads);
  Json by = Json::object();
  for (size_t i = 0; i < kNumOpClasses; ++i) {
    by[op_class_name(static_cast<OpClass>(i))] = {{"warp", c.warp_by_class[i]}, {"thread", c.thread_by_class[i]}};
  }
  j["by_class"] = by;
  j["memory"] = {{"global_bytes_read", c.global_bytes_read},
                 {"global_bytes_written", c.global_bytes_written},
                 {"local_bytes_read", c.local_bytes_read},
                 {"local_bytes_written", c.local_bytes_written},
                 {"global_memory_instructions", c.global_memory_instructions},
                 {"global_lines_touched", c.global_lines_touched},
                 {"lines_per_global_access", c.lines_per_global_access()},
                 {"lines_histogram", lines_histogram(c)},
                 {"local_memory_instructions", c.local_memory_instructions}};
  j["barrier_waits"] = c.barrier_waits;
  j["splits"] = c.splits;
  j["divergent_splits"] = c.divergent_splits;
  j["warps_spawned"] = c.warps_spawned;
  j["tensor"] = {{"wmma_instructions", c.warp_by_class[static_cast<size_t>(OpClass::kTensor)]},
                 {"uops", c.tensor_uops},
                 {"flops", c.tensor_flops},
                 {"int_ops", c.tensor_int_ops},
                 {"issue_slots", c.issue_slots()},
                 {"issue_share", c.tensor_issue_share()}};
  return j;
}
}  // namespace

Json counters_json_one(const Counters& c, uint32_t threads_per_warp) { return one(c, threads_per_warp); }

Json counters_to_json(const Counters& total, const std::vector<Counters>& per_core, const Config& config) {
  Json j;
  j["schema"] = schema_id("vxsim-counters", 1);
  j["config"] = {{"cores", config.cores}, {"warps", config.warps}, {"threads", config.threads},
                 {"local_mem_size", config.local_mem_bytes}};
  j["total"] = one(total, config.threads);
  Json cores = Json::array();
  for (const auto& c : per_core) cores.push_back(one(c, config.threads));
  j["cores"] = cores;
  return j;
}

}  // namespace vxsynth::vxsim
