// Small helpers the design part's rules and seeds share (internal to src/design).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

namespace vxsynth::design::util {

// The parts streamed into one string: a rule's detail, cat("tile ", m, "x", n).
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream s;
  (s << ... << parts);
  return s.str();
}

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The smallest power of two >= v (1 for v <= 1).
inline int next_pow2(std::int64_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

}  // namespace vxsynth::design::util
