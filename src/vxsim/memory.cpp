#include "vxsim/memory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/error.h"

namespace vxsynth::vxsim {

namespace {
// Never-written bytes read as SimX's 0xbaadf00d, little-endian per aligned word.
constexpr uint8_t kPattern[4] = {0x0d, 0xf0, 0xad, 0xba};

template <typename T>
T* zeroed_table(size_t n) {
  // calloc of a large block comes from fresh zero pages, so untouched entries cost no RSS.
  void* p = std::calloc(n, sizeof(T));
  if (!p) throw std::bad_alloc();
  return static_cast<T*>(p);
}

void check_span(uint32_t addr, uint64_t size, const char* what) {
  if (static_cast<uint64_t>(addr) + size > (1ull << 32)) {
    throw InputError("device memory", what, "range [addr, addr+size) runs past 0xFFFFFFFF");
  }
}

bool allows(Access have, Access need) {
  return (static_cast<uint8_t>(have) & static_cast<uint8_t>(need)) == static_cast<uint8_t>(need);
}
}  // namespace

Memory::Memory()
    : pages_(zeroed_table<uint8_t*>(kNumPages)),
      load_pages_(zeroed_table<const uint8_t*>(kNumPages)),
      store_pages_(zeroed_table<uint8_t*>(kNumPages)),
      pattern_page_(new uint8_t[kPageSize]) {
  for (uint32_t i = 0; i < kPageSize; ++i) pattern_page_[i] = kPattern[i & 3];
}

Memory::~Memory() {
  for (uint32_t p = 0; p < kNumPages; ++p) delete[] pages_[p];
  std::free(pages_);
  std::free(load_pages_);
  std::free(store_pages_);
}

uint8_t* Memory::page_for_write(uint32_t page) {
  uint8_t* p = pages_[page];
  if (!p) {
    p = new uint8_t[kPageSize];
    std::memcpy(p, pattern_page_.get(), kPageSize);
    pages_[page] = p;
    ++allocated_pages_;
    refresh_fast_pages(page, page);
  }
  return p;
}

void Memory::write(uint32_t addr, const void* src, size_t size) {
  check_span(addr, size, "write");
  const auto* s = static_cast<const uint8_t*>(src);
  uint64_t a = addr;
  size_t left = size;
  while (left > 0) {
    uint32_t off = static_cast<uint32_t>(a & (kPageSize - 1));
    size_t n = std::min<size_t>(left, kPageSize - off);
    std::memcpy(page_for_write(static_cast<uint32_t>(a >> kPageBits)) + off, s, n);
    s += n;
    a += n;
    left -= n;
  }
  if (listener_ && size > 0) listener_(addr, size);
}

void Memory::fill(uint32_t addr, uint8_t value, size_t size) {
  check_span(addr, size, "fill");
  uint64_t a = addr;
  size_t left = size;
  while (left > 0) {
    uint32_t off = static_cast<uint32_t>(a & (kPageSize - 1));
    size_t n = std::min<size_t>(left, kPageSize - off);
    std::memset(page_for_write(static_cast<uint32_t>(a >> kPageBits)) + off, value, n);
    a += n;
    left -= n;
  }
  if (listener_ && size > 0) listener_(addr, size);
}

void Memory::read(uint32_t addr, void* dst, size_t size) const {
  check_span(addr, size, "read");
  auto* d = static_cast<uint8_t*>(dst);
  uint64_t a = addr;
  size_t left = size;
  while (left > 0) {
    uint32_t off = static_cast<uint32_t>(a & (kPageSize - 1));
    size_t n = std::min<size_t>(left, kPageSize - off);
    const uint8_t* p = pages_[a >> kPageBits];
    std::memcpy(d, (p ? p : pattern_page_.get()) + off, n);
    d += n;
    a += n;
    left -= n;
  }
}

void Memory::set_access(uint32_t base, uint64_t size, Access access) {
  check_span(base, size, "acl");
  if (size == 0) return;
  // The newest range wins where ranges overlap, so older ranges it covers entirely are dead:
  // drop them, which keeps the list as long as the live buffers, not the allocation history.
  std::erase_if(acl_, [&](const AclRange& r) { return r.base >= base && r.base + r.size <= base + size; });
  acl_.push_back({base, size, access});
  refresh_fast_pages(base >> kPageBits, static_cast<uint32_t>((base + size - 1) >> kPageBits));
}

void Memory::clear_access(uint32_t base, uint64_t size) {
  set_access(base, size, Access::kReadWrite);
  // An unrestricted range that overlaps no other range is the same as no range.
  const AclRange& last = acl_.back();
  const bool overlaps = std::any_of(acl_.begin(), acl_.end() - 1, [&](const AclRange& r) {
    return r.base < last.base + last.size && last.base < r.base + r.size;
  });
  if (!overlaps) acl_.pop_back();
}

void Memory::clear_all_access() {
  acl_.clear();
  refresh_fast_pages(0, kNumPages - 1);
}

Access Memory::access_at(uint32_t addr) const {
  // The last range that covers addr wins.
  for (auto it = acl_.rbegin(); it != acl_.rend(); ++it) {
    if (addr >= it->base && addr - it->base < it->size) return it->access;
  }
  return Access::kReadWrite;
}

bool Memory::range_allows(uint32_t addr, uint32_t size, Access need) const {
  // One pass: the newest range covering addr, and whether any range starts or ends inside
  // the access (then, and only then, each byte is checked on its own).
  const uint64_t lo = addr, hi = uint64_t{addr} + size;
  Access have = Access::kReadWrite;
  bool found = false, split = false;
  for (auto it = acl_.rbegin(); it != acl_.rend(); ++it) {
    const uint64_t b = it->base, e = it->base + it->size;
    if ((b > lo && b < hi) || (e > lo && e < hi)) {
      split = true;
      break;
    }
    if (!found && lo >= b && lo < e) {
      have = it->access;
      found = true;
    }
  }
  if (!split) return allows(have, need);
  for (uint32_t i = 0; i < size; ++i) {
    if (!allows(access_at(addr + i), need)) return false;
  }
  return true;
}

void Memory::refresh_fast_pages(uint32_t first_page, uint32_t last_page) {
  for (uint64_t page = first_page; page <= last_page; ++page) {
    uint64_t lo = page << kPageBits, hi = lo + kPageSize;
    bool restrict_load = false, restrict_store = false;
    for (const auto& r : acl_) {
      if (r.base < hi && r.base + r.size > lo) {
        if (!allows(r.access, Access::kRead)) restrict_load = true;
        if (!allows(r.access, Access::kWrite)) restrict_store = true;
      }
    }
    uint8_t* p = pages_[page];
    load_pages_[page] = restrict_load ? nullptr : p;
    store_pages_[page] = restrict_store ? nullptr : p;
  }
}

bool Memory::kernel_load(uint32_t addr, void* dst, uint32_t size) const {
  if (!range_allows(addr, size, Access::kRead)) return false;
  const uint8_t* p = pages_[addr >> kPageBits];
  std::memcpy(dst, (p ? p : pattern_page_.get()) + (addr & (kPageSize - 1)), size);
  return true;
}

bool Memory::kernel_store(uint32_t addr, const void* src, uint32_t size) {
  if (!range_allows(addr, size, Access::kWrite)) return false;
  std::memcpy(page_for_write(addr >> kPageBits) + (addr & (kPageSize - 1)), src, size);
  return true;
}

}  // namespace vxsynth::vxsim
