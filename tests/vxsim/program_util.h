// Helpers for the tests that run the test programs (tests/vxsim/programs, built by CMake).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "vxsim/simulator.h"

namespace vxsim_test {

using namespace vxsynth::vxsim;

inline constexpr uint32_t kResults = 0x00100000;   // check.h RESULTS
inline constexpr uint32_t kExpected = 0x90000000;  // link.ld .expected
inline constexpr uint32_t kShared = 0x00400000;    // simt.S SHARED

inline std::string program_path(const std::string& name) { return std::string(VXSIM_TEST_PROGRAM_DIR) + "/" + name + ".elf"; }

inline Config make_config(uint32_t cores, uint32_t warps, uint32_t threads) {
  Config c;
  c.cores = cores;
  c.warps = warps;
  c.threads = threads;
  return c;
}

inline uint32_t read_word(const Simulator& sim, uint32_t addr) {
  uint32_t v = 0;
  sim.memory().read(addr, &v, 4);
  return v;
}

inline std::string read_cstring(const Simulator& sim, uint32_t addr) {
  std::string s;
  for (char ch = 0; s.size() < 200; ++addr) {
    sim.memory().read(addr, &ch, 1);
    if (ch == 0) break;
    s.push_back(ch);
  }
  return s;
}

struct Check {
  std::string name;
  uint32_t expected = 0;
  uint32_t actual = 0;
};

// The {expected, name} records the assembler put in .expected, with the values the program
// stored to results[i].
inline std::vector<Check> read_checks(const Simulator& sim, const ProgramInfo& info) {
  std::vector<Check> checks;
  for (const auto& seg : info.segments) {
    if (seg.vaddr != kExpected) continue;
    for (uint32_t i = 0; i < seg.file_size / 8; ++i) {
      Check c;
      c.expected = read_word(sim, kExpected + 8 * i);
      c.name = read_cstring(sim, read_word(sim, kExpected + 8 * i + 4));
      c.actual = read_word(sim, kResults + 4 * i);
      checks.push_back(c);
    }
  }
  return checks;
}

// Records which instructions ran (the timing-model seam doubles as a coverage probe).
class InsnRecorder : public InstructionConsumer {
 public:
  void on_instruction(const ExecutedInstruction& r) override { ids.insert(r.insn_id); }
  std::set<uint16_t> ids;
};

}  // namespace vxsim_test
