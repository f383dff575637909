// vxsynth: reconstructs vendor GPU kernels as paired CUDA proxies and Vortex benchmarks.
#include <algorithm>
#include <iostream>
#include <map>

#include "cli/command.h"
#include "common/error.h"

int main(int argc, char** argv) {
  using namespace vxsynth::cli;
  CLI::App app{
      "vxsynth: reconstructs hot vendor GPU kernels (cuBLAS, cuDNN) as paired CUDA proxy and Vortex\n"
      "benchmarks whose Nsight Compute profile signature matches the reference.\n"
      "Exit codes: 0 success, 1 the work failed, 2 bad usage or bad input."};
  app.name("vxsynth");
  app.require_subcommand(1);
  app.set_version_flag("--version", "vxsynth 0.1.0");

  auto commands = command_registry();
  std::sort(commands.begin(), commands.end(), [](const Command& a, const Command& b) { return a.order < b.order; });
  std::map<CLI::App*, Runner> runners;
  for (const Command& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    runners[sub] = c.configure(*sub);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }

  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
    return kExitBadInput;
  } catch (const vxsynth::InputError& e) {
    std::cerr << "vxsynth: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const vxsynth::WorkError& e) {
    std::cerr << "vxsynth: failed: " << e.what() << "\n";
    return kExitWorkFailed;
  } catch (const std::exception& e) {
    std::cerr << "vxsynth: internal error: " << e.what() << "\n";
    return kExitWorkFailed;
  }
}
