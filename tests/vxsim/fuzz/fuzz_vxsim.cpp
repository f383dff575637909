// libFuzzer target for vxsim: the bytes are (1) parsed as a program (ELF32 / .vxbin) and, if
// that works, loaded and run; (2) used as raw code. Every outcome must be a result, an
// InputError or a SimFault: never a crash, a sanitizer report or a hang (a budget bounds runs).
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/error.h"
#include "vxsim/simulator.h"

using namespace vxsynth::vxsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Config cfg;
  cfg.max_instructions = 2000;
  cfg.threads = size > 0 ? 1u << (data[0] % 6) : 4;  // 1..32 threads, from the first byte
  std::span<const uint8_t> bytes(data, size);
  try {
    Simulator sim(cfg);
    sim.load_program_bytes(bytes, "fuzz");
    sim.run();
  } catch (const vxsynth::InputError&) {
  } catch (const SimFault&) {
  }
  if (size >= 4) {
    try {
      Simulator sim(cfg);
      sim.memory().write(0x80000000u, data, size & ~size_t{3});
      sim.run();
    } catch (const SimFault&) {
    }
  }
  return 0;
}
