// vxsynth: reconstructs vendor GPU kernels as paired CUDA proxies and Vortex benchmarks.
#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/command.h"
#include "codegen/generator.h"
#include "common/error.h"

namespace {

// Edit distance (insertions, deletions, substitutions, adjacent swaps count 1).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string command_path(const CLI::App* app) {
  std::string path;
  for (; app; app = app->get_parent()) path = app->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

// Before CLI11 sees the arguments: a word where a subcommand is expected must name one (CLI11
// alone says only "A subcommand is required"). Returns the message for an unknown word, with
// the nearest names, or "" when the words are fine.
std::string unknown_subcommand(CLI::App& app, int argc, char** argv) {
  CLI::App* cur = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') return "";  // options: CLI11 parses the rest
    const auto subs = cur->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) return "";
    CLI::App* next = nullptr;
    for (CLI::App* s : subs)
      if (s->check_name(word)) next = s;
    if (next) {
      cur = next;
      continue;
    }
    // A command that takes positionals as well as subcommands reads the word as a positional.
    if (!cur->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty()) return "";
    std::vector<std::pair<std::size_t, std::string>> near;
    std::string all;
    for (CLI::App* s : subs) {
      const std::string& name = s->get_name();
      all += (all.empty() ? "" : ", ") + name;
      const std::size_t d = edit_distance(word, name);
      const bool prefix = name.rfind(word, 0) == 0 || word.rfind(name, 0) == 0;
      if (d <= std::max<std::size_t>(2, name.size() / 3) || prefix) near.emplace_back(d, name);
    }
    std::sort(near.begin(), near.end());
    std::string msg = "'" + word + "' is not a subcommand of '" + command_path(cur) + "'";
    if (!near.empty()) {
      msg += "; did you mean '" + command_path(cur) + " " + near.front().second + "'";
      for (std::size_t k = 1; k < near.size() && near[k].first == near.front().first; ++k)
        msg += " or '" + command_path(cur) + " " + near[k].second + "'";
      msg += "?";
    }
    return msg + "\nsubcommands: " + all + " (`" + command_path(cur) + " --help` describes them)";
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vxsynth::cli;
  CLI::App app{
      "vxsynth: reconstructs hot vendor GPU kernels (cuBLAS, cuDNN) as paired CUDA proxy and Vortex\n"
      "benchmarks whose Nsight Compute profile signature matches the reference.\n"
      "Exit codes: 0 success, 1 the work failed, 2 bad usage or bad input."};
  app.name("vxsynth");
  app.require_subcommand(1);
  // The generator's identity is what a user quotes to regenerate a source (docs/design-space.md).
  app.set_version_flag("--version", "vxsynth 0.1.0, " + vxsynth::codegen::describe(vxsynth::codegen::current_generator()));

  auto commands = command_registry();
  std::sort(commands.begin(), commands.end(), [](const Command& a, const Command& b) { return a.order < b.order; });
  std::map<CLI::App*, Runner> runners;
  for (const Command& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    runners[sub] = c.configure(*sub);
  }

  if (const std::string msg = unknown_subcommand(app, argc, argv); !msg.empty()) {
    std::cerr << "vxsynth: error: " << msg << "\n";
    return kExitBadInput;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors carry the same prefix as the errors the commands raise, and point at the
    // help of the (sub)command that was being parsed.
    CLI::App* deepest = &app;
    for (auto parsed = deepest->get_subcommands(); !parsed.empty(); parsed = deepest->get_subcommands())
      deepest = parsed.front();
    std::cerr << "vxsynth: error: " << e.what() << "\nRun '" << command_path(deepest)
              << " --help' for more information.\n";
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
