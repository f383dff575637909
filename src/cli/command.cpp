#include "cli/command.h"

namespace vxsynth::cli {

std::vector<Command>& command_registry() {
  static std::vector<Command> registry;
  return registry;
}

CommandRegistrar::CommandRegistrar(std::string name, std::string summary, int order, Configure configure) {
  command_registry().push_back({std::move(name), std::move(summary), order, std::move(configure)});
}

}  // namespace vxsynth::cli
