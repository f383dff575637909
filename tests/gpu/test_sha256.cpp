#include <gtest/gtest.h>

#include <random>

#include "gpu/sha256.h"

namespace vxsynth::gpu {
namespace {

// FIPS 180-4 / NIST example vectors.
TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Padding edge cases: lengths around the 55/56/64-byte boundaries, fed in random pieces, must
// give the same digest as one update.
TEST(Sha256, ChunkedUpdatesMatchOneUpdate) {
  std::mt19937 rng(12345);
  for (std::size_t len : {0u, 1u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 128u, 1000u}) {
    std::string data(len, '\0');
    for (auto& c : data) c = static_cast<char>(rng());
    Sha256 chunked;
    std::size_t pos = 0;
    while (pos < len) {
      const std::size_t n = std::min<std::size_t>(len - pos, 1 + rng() % 70);
      chunked.update(std::string_view(data).substr(pos, n));
      pos += n;
    }
    EXPECT_EQ(chunked.hex_digest(), sha256_hex(data)) << "length " << len;
  }
  EXPECT_NE(sha256_hex("a"), sha256_hex("b"));
}

}  // namespace
}  // namespace vxsynth::gpu
