#include "vxsim/host/host_flags.h"

#include <filesystem>

namespace vxsynth::vxsim::host {

namespace fs = std::filesystem;

// libvortex.a is vxsynth's host library under Vortex's name, so Vortex's Makefiles
// (-L$(VORTEX_RT_PATH) -lvortex) link it unchanged; it is C++ and uses threads.
const std::vector<std::string> kLinkTail = {"-lvortex", "-lstdc++", "-lm", "-pthread"};

HostBuildFlags host_build_flags(const std::string& installed_prefix) {
  HostBuildFlags flags;
  if (!installed_prefix.empty()) {
    flags.installed = true;
    flags.prefix = installed_prefix;
    flags.cflags = {"-I" + (fs::path(installed_prefix) / "include" / "vxsynth").string()};
    flags.libs = {"-L" + (fs::path(installed_prefix) / "lib" / "vxsynth").string()};
  } else {
    flags.prefix = VXSYNTH_BUILD_DIR_PATH;
    flags.cflags = {"-I" + (fs::path(VXSYNTH_SOURCE_DIR_PATH) / "src" / "vxsim" / "host" / "include").string(),
                    "-I" + (fs::path(VXSYNTH_SOURCE_DIR_PATH) / "vortex-rt" / "include").string()};
    flags.libs = {"-L" + (fs::path(VXSYNTH_BUILD_DIR_PATH) / "lib").string()};
  }
  flags.libs.insert(flags.libs.end(), kLinkTail.begin(), kLinkTail.end());
  return flags;
}

std::string installed_prefix_of(const std::string& executable) {
  std::error_code ec;
  const fs::path exe = fs::weakly_canonical(executable, ec);
  if (ec || exe.empty()) return "";
  const fs::path prefix = exe.parent_path().parent_path();
  if (exe.parent_path().filename() == "bin" && fs::is_regular_file(prefix / "include" / "vxsynth" / "vortex.h", ec)) {
    return prefix.string();
  }
  return "";
}

}  // namespace vxsynth::vxsim::host
