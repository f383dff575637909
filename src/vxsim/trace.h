// The seam for a later timing model: the functional core can hand every executed warp
// instruction to a consumer. Null by default (no cost beyond one pointer test per batch);
// a consumer observes and must not change architectural state.
#pragma once

#include <array>
#include <cstdint>

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
};

class InstructionConsumer {
 public:
  virtual ~InstructionConsumer() = default;
  virtual void on_instruction(const ExecutedInstruction& record) = 0;
};

}  // namespace vxsynth::vxsim
