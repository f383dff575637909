// Subcommand registry of the `vxsynth` executable.
//
// Each cmd_<name>.cpp defines a static CommandRegistrar. Its configure function adds the
// subcommand's options to the CLI11 app it is given and returns the function that runs it.
// Exit codes (docs/cli.md): 0 success, 1 the work failed, 2 bad usage or bad input.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace vxsynth::cli {

enum ExitCode : int { kExitOk = 0, kExitWorkFailed = 1, kExitBadInput = 2 };

using Runner = std::function<int()>;
using Configure = std::function<Runner(CLI::App& sub)>;

struct Command {
  std::string name;
  std::string summary;
  int order;  // position in `vxsynth --help`
  Configure configure;
};

std::vector<Command>& command_registry();

struct CommandRegistrar {
  CommandRegistrar(std::string name, std::string summary, int order, Configure configure);
};

}  // namespace vxsynth::cli
