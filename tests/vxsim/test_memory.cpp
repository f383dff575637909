// Global memory: sparse pages, the 0xbaadf00d pattern, page-crossing host copies, ACL ranges
// and the fast/checked split of the kernel path.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "common/error.h"
#include "vxsim/memory.h"

using namespace vxsynth::vxsim;

TEST(Memory, NeverWrittenReadsThePatternWithoutAllocating) {
  Memory m;
  uint32_t v = 0;
  m.read(0x12345670, &v, 4);
  EXPECT_EQ(v, 0xbaadf00du);
  uint8_t b = 0;
  m.read(0x12345673, &b, 1);
  EXPECT_EQ(b, 0xba);
  EXPECT_EQ(m.allocated_pages(), 0u);
}

TEST(Memory, RandomCopiesAcrossPagesRoundTrip) {
  Memory m;
  std::mt19937 rng(7);
  std::vector<uint8_t> data(3 * Memory::kPageSize + 123);
  for (auto& x : data) x = static_cast<uint8_t>(rng());
  const uint32_t base = 0x20000ffd;  // straddles page boundaries
  m.write(base, data.data(), data.size());
  std::vector<uint8_t> back(data.size());
  m.read(base, back.data(), back.size());
  EXPECT_EQ(back, data);
  EXPECT_EQ(m.allocated_pages(), 5u);
  // The untouched bytes of a touched page keep the pattern.
  uint8_t before = 0;
  m.read(base - 1, &before, 1);
  EXPECT_EQ(before, 0x0d);  // (base - 1) % 4 == 0: the low byte of 0xbaadf00d
}

TEST(Memory, RangesPastTheAddressSpaceAreRejected) {
  Memory m;
  uint8_t buf[8] = {};
  EXPECT_THROW(m.write(0xfffffffc, buf, 8), vxsynth::InputError);
  EXPECT_THROW(m.read(0xfffffffc, buf, 8), vxsynth::InputError);
  EXPECT_NO_THROW(m.write(0xfffffffc, buf, 4));
}

TEST(Memory, AclRangesAndOverrides) {
  Memory m;
  m.set_access(0x10000, 0x100, Access::kRead);
  EXPECT_EQ(m.access_at(0x10000), Access::kRead);
  EXPECT_EQ(m.access_at(0x100ff), Access::kRead);
  EXPECT_EQ(m.access_at(0x10100), Access::kReadWrite) << "outside every range: unrestricted";
  m.set_access(0x10080, 0x10, Access::kWrite);
  EXPECT_EQ(m.access_at(0x10080), Access::kWrite) << "the later range wins";
  EXPECT_EQ(m.access_at(0x1007f), Access::kRead);
  uint32_t v = 1;
  EXPECT_FALSE(m.kernel_store(0x10000, &v, 4));
  EXPECT_TRUE(m.kernel_store(0x10080, &v, 4));
  EXPECT_FALSE(m.kernel_load(0x10080, &v, 4));
  EXPECT_TRUE(m.kernel_load(0x10000, &v, 4));
  // A store straddling into a read-only byte is rejected.
  EXPECT_FALSE(m.kernel_store(0x1007e, &v, 4) && m.access_at(0x1007e) == Access::kRead);
  m.clear_access(0x10000, 0x100);
  EXPECT_TRUE(m.kernel_store(0x10000, &v, 4));
  m.set_access(0x20000, 4, Access::kNone);
  EXPECT_FALSE(m.kernel_load(0x20000, &v, 4));
  m.clear_all_access();
  EXPECT_TRUE(m.kernel_load(0x20000, &v, 4));
}

TEST(Memory, FastPagesOnlyWhereNoAclRestricts) {
  Memory m;
  uint32_t v = 5;
  m.write(0x30000, &v, 4);
  EXPECT_NE(m.fast_load_page(0x30000), nullptr);
  EXPECT_NE(m.fast_store_page(0x30000), nullptr);
  m.set_access(0x30800, 16, Access::kRead);  // same page
  EXPECT_NE(m.fast_load_page(0x30000), nullptr);
  EXPECT_EQ(m.fast_store_page(0x30000), nullptr) << "stores anywhere in the page must be checked now";
  EXPECT_EQ(m.fast_load_page(0x50000), nullptr) << "unallocated pages take the checked path";
}

TEST(Memory, WriteListenerSeesHostWrites) {
  Memory m;
  uint32_t seen_addr = 0;
  size_t seen_size = 0;
  m.set_write_listener([&](uint32_t a, size_t s) {
    seen_addr = a;
    seen_size = s;
  });
  m.fill(0x40000, 0, 100);
  EXPECT_EQ(seen_addr, 0x40000u);
  EXPECT_EQ(seen_size, 100u);
}

TEST(Memory, AclListStaysAsLongAsTheLiveRanges) {
  Memory m;
  for (uint32_t i = 0; i < 1000; ++i) {
    const uint32_t base = 0x100000 + (i % 10) * 0x1000;
    m.set_access(base, 0x1000, Access::kRead);
    m.clear_access(base, 0x1000);
  }
  EXPECT_TRUE(m.acl().empty());
  m.set_access(0x200000, 0x100, Access::kRead);
  m.set_access(0x200000, 0x100, Access::kWrite);
  ASSERT_EQ(m.acl().size(), 1u);
  EXPECT_EQ(m.access_at(0x200010), Access::kWrite);
  m.set_access(0x200040, 0x10, Access::kRead);   // inside: both kept
  m.clear_access(0x200040, 0x10);               // overlaps the outer range: kept as an override
  EXPECT_EQ(m.access_at(0x200040), Access::kReadWrite);
  EXPECT_EQ(m.access_at(0x200000), Access::kWrite);
}

TEST(Memory, KernelAccessesStraddlingRangeBoundaries) {
  Memory m;
  m.set_access(0x10002, 2, Access::kRead);     // bytes 2..3 of the word at 0x10000
  m.set_access(0x10008, 0x100, Access::kWrite);
  m.set_access(0x10010, 4, Access::kReadWrite);  // a hole of read-write inside the write-only range
  uint32_t v = 0;
  uint16_t h = 0;
  EXPECT_FALSE(m.kernel_store(0x10000, &v, 4)) << "two of the four bytes are read-only";
  EXPECT_TRUE(m.kernel_store(0x10000, &h, 2));
  EXPECT_FALSE(m.kernel_store(0x10002, &h, 2));
  EXPECT_TRUE(m.kernel_load(0x10000, &v, 4));
  EXPECT_FALSE(m.kernel_load(0x10008, &v, 4));
  EXPECT_TRUE(m.kernel_load(0x10010, &v, 4)) << "the newer read-write range wins";
  EXPECT_FALSE(m.kernel_load(0x1000c, &v, 4));
  EXPECT_TRUE(m.kernel_store(0x1000c, &v, 4));
  EXPECT_TRUE(m.kernel_load(0x10200, &v, 4)) << "outside every range";
}
