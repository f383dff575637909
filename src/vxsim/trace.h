// The seam for a later timing model: the functional core can hand every executed warp
// instruction to a consumer. Null by default (no cost beyond one pointer test per batch);
// a consumer observes and must not change architectural state.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <unordered_map>
#include <vector>

#include "vxsim/counters.h"

namespace vxsynth::vxsim {

struct ExecutedInstruction {
  uint32_t core = 0;
  uint32_t warp = 0;
  uint32_t pc = 0;
  uint32_t word = 0;
  uint16_t insn_id = 0;     // index into the encoding table (see decode.h)
  OpClass op_class = OpClass::kAlu;
  uint32_t thread_mask = 0; // lanes that executed it
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;  // register fields as encoded
  bool is_memory = false;
  std::array<uint32_t, 32> addresses{};       // per-lane effective address when is_memory
  uint32_t next_mask = 0;   // the warp's thread mask after it (0: the warp exited)
  uint32_t arg0 = 0, arg1 = 0;  // x[rs1], x[rs2] of the last active lane, read after it ran
                                // (warp control: BAR id/count, WSPAWN count/pc)
  uint32_t uops = 1;        // issue slots on Vortex 2.x: a WMMA's micro-ops, else 1
};

struct Config;

class InstructionConsumer {
 public:
  virtual ~InstructionConsumer() = default;
  virtual void on_instruction(const ExecutedInstruction& record) = 0;

  // Pacing, for a timing model that replays each warp's stream on its own clock: the run
  // loop runs warp `warp` of core `core` for at most wants() instructions in this round
  // (0: skip it this round), and calls on_round_end() after every round; a true return
  // counts as progress for the deadlock check. The defaults leave the run loop as it is.
  virtual uint64_t wants(uint32_t /*core*/, uint32_t /*warp*/) { return UINT64_MAX; }
  virtual bool on_round_end() { return false; }
  // Around Simulator::run(); `completed` is false when the run ended in a fault.
  virtual void on_run_begin(const Config& /*config*/) {}
  virtual void on_run_end(bool /*completed*/) {}
};

// Writes one line per executed warp instruction:
//   "c0 w1 80000124 m0000000f  add a2, a0, a1  [0x100000 0x100004 ...]"
// (core, warp, PC, thread mask, disassembly, per-lane addresses of memory instructions).
// `limit` bounds the number of lines (0 = no limit); further instructions are counted only.
class TraceWriter : public InstructionConsumer {
 public:
  explicit TraceWriter(std::ostream& out, uint64_t limit = 0) : out_(out), limit_(limit) {}
  void on_instruction(const ExecutedInstruction& r) override;
  uint64_t seen() const { return seen_; }

 private:
  std::ostream& out_;
  uint64_t limit_;
  uint64_t seen_ = 0;
};

// Per-PC execution profile: warp- and thread-instructions for every PC that ran.
class PcProfile : public InstructionConsumer {
 public:
  struct Entry {
    uint32_t pc = 0;
    uint32_t word = 0;
    uint64_t warp_instructions = 0;
    uint64_t thread_instructions = 0;
  };
  void on_instruction(const ExecutedInstruction& r) override;
  // The `n` PCs with the most thread-instructions, most first.
  std::vector<Entry> hottest(size_t n) const;

 private:
  std::unordered_map<uint32_t, Entry> by_pc_;
};

}  // namespace vxsynth::vxsim
