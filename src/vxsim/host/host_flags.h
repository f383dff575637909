// Compiler and linker flags for a host program built against vxsynth's vortex.h outside this
// tree (`vxsynth sim flags --cflags --libs`, like llvm-config). From an installed vxsynth
// (cmake --install) they name the install prefix, from a build tree the source and build
// folders. The same flags are in the pkg-config file vxsynth-vortex.pc and the CMake package
// vxsynth (target vxsynth::vortex), both written for the build tree and for an install.
#pragma once

#include <string>
#include <vector>

namespace vxsynth::vxsim::host {

struct HostBuildFlags {
  std::vector<std::string> cflags;  // -I folders of vortex.h, VX_config.h, VX_types.h
  std::vector<std::string> libs;    // -L folder of libvortex.a, -lvortex and what it needs
  bool installed = false;           // true: paths under an install prefix
  std::string prefix;               // the install prefix, or the build folder
};

// installed_prefix: where this program runs from, if that is an install (bin/vxsynth under
// a prefix that holds include/vxsynth/vortex.h); empty means the build tree's paths.
HostBuildFlags host_build_flags(const std::string& installed_prefix);

// The prefix of an installed vxsynth that `executable` belongs to, or "" for a build tree.
std::string installed_prefix_of(const std::string& executable);

}  // namespace vxsynth::vxsim::host
