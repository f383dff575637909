// Placeholder implementation while the core is written; the API in simulator.h is final.
#include "vxsim/simulator.h"

#include "common/error.h"

namespace vxsynth::vxsim {

class Core {};
struct Simulator::Internals {};

Simulator::Simulator(const Config& config) : config_(config) { config_.validate(); }
Simulator::~Simulator() = default;
ProgramInfo Simulator::load_program(const std::string& path, bool) { throw WorkError("vxsim: loader not yet implemented: " + path); }
ProgramInfo Simulator::load_program_bytes(std::span<const uint8_t>, const std::string& name, bool) {
  throw WorkError("vxsim: loader not yet implemented: " + name);
}
void Simulator::load_line_info(const std::string&) {}
void Simulator::write_dcr(uint32_t addr, uint32_t value) {
  if (addr == kDcrStartupAddr0) startup_addr_ = value;
  else if (addr == kDcrStartupArg0) startup_arg_ = value;
  else if (addr == kDcrMpmClass) mpm_class_ = value;
}
uint32_t Simulator::read_dcr(uint32_t addr) const {
  return addr == kDcrStartupAddr0 ? startup_addr_ : addr == kDcrStartupArg0 ? startup_arg_ : addr == kDcrMpmClass ? mpm_class_ : 0;
}
RunResult Simulator::run() { throw WorkError("vxsim: run not yet implemented"); }
void Simulator::set_console_callback(std::function<void(const ConsoleLine&)> callback) { console_callback_ = std::move(callback); }
std::string Simulator::console_text() const { return {}; }
Json Simulator::counters_json() const { return counters_to_json(total_counters_, core_counters_, config_); }
std::span<uint8_t> Simulator::local_memory(uint32_t) { return {}; }
void Simulator::invalidate_decoded() {}
std::string Simulator::disassemble(uint32_t, uint32_t) { return {}; }

}  // namespace vxsynth::vxsim
