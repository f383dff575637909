#include "vxsim/timing/params.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <fstream>

#include "common/error.h"
#include "vxsim/config.h"

namespace vxsynth::vxsim::timing {

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string known_names() {
  std::string names;
  for (const auto& e : TimingParams::entries()) names += std::string(names.empty() ? "" : ", ") + e.name;
  return names;
}
}  // namespace

const std::vector<TimingParams::Entry>& TimingParams::entries() {
  using P = TimingParams;
  static const std::vector<Entry> table = {
      {"issue_width", &P::issue_width, "issue slots per cycle (0: ceil(warps/16))"},
      {"ibuf_size", &P::ibuf_size, "instruction buffer entries per warp"},
      {"fetch_latency", &P::fetch_latency, "schedule to decode on an icache hit"},
      {"issue_latency", &P::issue_latency, "issue to functional-unit input"},
      {"gpr_banks", &P::gpr_banks, "register-file banks of the operand collector"},
      {"commit_latency", &P::commit_latency, "unit output to scoreboard release"},
      {"resume_latency", &P::resume_latency, "branch/warp control at its unit to the warp's next schedule"},
      {"alu_latency", &P::alu_latency, "ALU, branch, MUL latency"},
      {"div_latency", &P::div_latency, "DIV/REM latency"},
      {"fpu_ncp_latency", &P::fpu_ncp_latency, "FP compare/sign/class/min/max/move latency"},
      {"fpu_fma_latency", &P::fpu_fma_latency, "FP add/mul/FMA latency"},
      {"fpu_div_latency", &P::fpu_div_latency, "FP divide latency"},
      {"fpu_sqrt_latency", &P::fpu_sqrt_latency, "FP square root latency"},
      {"fpu_cvt_latency", &P::fpu_cvt_latency, "FP conversion latency"},
      {"sfu_latency", &P::sfu_latency, "CSR and warp-control latency"},
      {"tcu_latency", &P::tcu_latency, "tensor micro-op latency"},
      {"lsu_latency", &P::lsu_latency, "LSU input to the memory request"},
      {"lsu_rsp_latency", &P::lsu_rsp_latency, "last memory response to the LSU output"},
      {"lsu_queue", &P::lsu_queue, "outstanding warp loads per LSU (0: LSUQ_IN_SIZE = 2)"},
      {"icache_size", &P::icache_size, "L1 instruction cache bytes"},
      {"icache_ways", &P::icache_ways, "L1 instruction cache ways"},
      {"icache_line", &P::icache_line, "L1 instruction cache line bytes"},
      {"icache_mshr", &P::icache_mshr, "L1 instruction cache MSHR entries"},
      {"icache_latency", &P::icache_latency, "L1 instruction cache hit latency"},
      {"dcache_size", &P::dcache_size, "L1 data cache bytes"},
      {"dcache_ways", &P::dcache_ways, "L1 data cache ways"},
      {"dcache_line", &P::dcache_line, "L1 data cache line bytes"},
      {"dcache_banks", &P::dcache_banks, "L1 data cache banks (0: DCACHE_NUM_REQS)"},
      {"dcache_mshr", &P::dcache_mshr, "L1 data cache MSHR entries"},
      {"dcache_latency", &P::dcache_latency, "L1 data cache hit latency"},
      {"lsu_block", &P::lsu_block, "coalescing block bytes (0: min(threads*4, 64))"},
      {"socket_size", &P::socket_size, "cores sharing one L1 I/D cache pair"},
      {"socket_latency", &P::socket_latency, "extra cycles each way to an L1 shared by several cores"},
      {"lmem_banks", &P::lmem_banks, "local memory banks (0: threads per warp)"},
      {"lmem_latency", &P::lmem_latency, "local memory latency"},
      {"l2_enable", &P::l2_enable, "1: an L2 cache between the L1s and memory"},
      {"l2_size", &P::l2_size, "L2 bytes"},
      {"l2_ways", &P::l2_ways, "L2 ways"},
      {"l2_line", &P::l2_line, "L2 line bytes"},
      {"l2_banks", &P::l2_banks, "L2 banks (0: derived)"},
      {"l2_mshr", &P::l2_mshr, "L2 MSHR entries"},
      {"l2_latency", &P::l2_latency, "L2 hit latency"},
      {"mem_banks", &P::mem_banks, "memory banks (channels), interleaved by line"},
      {"mem_latency", &P::mem_latency, "memory request-to-response latency"},
      {"mem_cycles_per_line", &P::mem_cycles_per_line, "cycles a memory bank is busy per line"},
      {"mem_line", &P::mem_line, "memory block bytes"},
      {"mem_dram_banks", &P::mem_dram_banks, "DRAM banks per memory channel (one open row each)"},
      {"mem_row_lines", &P::mem_row_lines, "lines per DRAM row of a channel"},
      {"mem_row_miss_cycles", &P::mem_row_miss_cycles, "cycles to open a row (precharge + activate)"},
      {"mem_queue", &P::mem_queue, "requests waiting per memory channel before requesters wait (0: no limit)"},
  };
  return table;
}

void TimingParams::set(std::string_view name, uint64_t value, const std::string& source) {
  for (const auto& e : entries()) {
    if (name == e.name) {
      if (value > 0xFFFFFFFFull) throw InputError(source, std::string(name), "value too large: " + std::to_string(value));
      this->*(e.field) = static_cast<uint32_t>(value);
      return;
    }
  }
  throw InputError(source, std::string(name), "unknown timing parameter; known: " + known_names());
}

void TimingParams::set_assignment(std::string_view assignment, const std::string& source) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    throw InputError(source, std::string(assignment), "expected NAME=VALUE (e.g. mem_latency=100)");
  }
  const std::string_view name = trim(assignment.substr(0, eq));
  const std::string_view text = trim(assignment.substr(eq + 1));
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    throw InputError(source, std::string(name), "expected an unsigned integer, got '" + std::string(text) + "'");
  }
  set(name, value, source);
}

void TimingParams::load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "", "cannot open the timing configuration file");
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string_view s = line;
    if (const size_t hash = s.find('#'); hash != std::string_view::npos) s = s.substr(0, hash);
    s = trim(s);
    if (s.empty()) continue;
    set_assignment(s, path + ":" + std::to_string(number));
  }
}

uint64_t TimingParams::get(std::string_view name) const {
  for (const auto& e : entries()) {
    if (name == e.name) return this->*(e.field);
  }
  throw InputError("timing parameter", std::string(name), "unknown timing parameter; known: " + known_names());
}

void TimingParams::resolve(const Config& config) {
  if (issue_width == 0) issue_width = std::max<uint32_t>(1, config.warps / 16);
  if (lsu_block == 0) lsu_block = std::min<uint32_t>(config.threads * 4, 64);
  if (dcache_banks == 0) dcache_banks = std::max<uint32_t>(1, (config.threads * 4 + lsu_block - 1) / lsu_block);
  if (lmem_banks == 0) lmem_banks = config.threads;
  if (lsu_queue == 0) lsu_queue = 2;  // LSUQ_IN_SIZE = 2 * (SIMD_WIDTH / NUM_LSU_LANES)
  if (l2_banks == 0) l2_banks = 2;
  const char* source = "timing parameters";
  auto pow2 = [&](const char* name, uint32_t v) {
    if (v == 0 || !std::has_single_bit(v)) {
      throw InputError(source, name, "expected a power of two, got " + std::to_string(v));
    }
  };
  auto positive = [&](const char* name, uint32_t v) {
    if (v == 0) throw InputError(source, name, "expected a value > 0");
  };
  pow2("icache_size", icache_size);
  pow2("icache_ways", icache_ways);
  pow2("icache_line", icache_line);
  pow2("dcache_size", dcache_size);
  pow2("dcache_ways", dcache_ways);
  pow2("dcache_line", dcache_line);
  pow2("dcache_banks", dcache_banks);
  pow2("lsu_block", lsu_block);
  pow2("lmem_banks", lmem_banks);
  pow2("l2_size", l2_size);
  pow2("l2_ways", l2_ways);
  pow2("l2_line", l2_line);
  pow2("l2_banks", l2_banks);
  pow2("mem_banks", mem_banks);
  pow2("mem_line", mem_line);
  pow2("mem_dram_banks", mem_dram_banks);
  pow2("mem_row_lines", mem_row_lines);
  positive("ibuf_size", ibuf_size);
  positive("icache_mshr", icache_mshr);
  positive("dcache_mshr", dcache_mshr);
  positive("l2_mshr", l2_mshr);
  positive("socket_size", socket_size);
  positive("lsu_queue", lsu_queue);
  positive("issue_width", issue_width);
  positive("gpr_banks", gpr_banks);
  if (icache_size < icache_line * icache_ways) throw InputError(source, "icache_size", "smaller than one set");
  if (dcache_size < dcache_line * dcache_ways) throw InputError(source, "dcache_size", "smaller than one set");
  if (l2_size < l2_line * l2_ways) throw InputError(source, "l2_size", "smaller than one set");
  if (config.warps % issue_width != 0) {
    throw InputError(source, "issue_width", "must divide the warp count " + std::to_string(config.warps));
  }
}

}  // namespace vxsynth::vxsim::timing
