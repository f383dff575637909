// SHA-256 (FIPS 180-4), used to name cached candidate builds by the content that made them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace vxsynth::gpu {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  // Finishes the digest and returns it as 64 lowercase hex digits; the object is spent.
  std::string hex_digest();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace vxsynth::gpu
