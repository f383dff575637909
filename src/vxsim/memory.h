// Global device memory: the sparse 32-bit address space shared by all cores, plus the host's
// access-control list. Per-core local memory lives in the core (see simulator.h); IO (console,
// MPM, exit code) is decoded by the core before it reaches this class.
//
// Pages are 4 KiB, allocated on first write and filled with SimX's 0xbaadf00d pattern; reads
// of never-written memory return the pattern without allocating. The hot path is one table
// lookup: a page is "fast" for loads (or stores) when it is allocated and no ACL range
// restricts that direction anywhere in it; other pages take the checked path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace vxsynth::vxsim {

// What a kernel may do to a host buffer. Vortex flags: VX_MEM_READ = 1 (the kernel reads it),
// VX_MEM_WRITE = 2, VX_MEM_READ_WRITE = 3. kNone makes a guard range (both directions fault).
enum class Access : uint8_t { kNone = 0, kRead = 1, kWrite = 2, kReadWrite = 3 };

struct AclRange {
  uint32_t base = 0;
  uint64_t size = 0;
  Access access = Access::kReadWrite;
};

class Memory {
 public:
  static constexpr uint32_t kPageBits = 12;
  static constexpr uint32_t kPageSize = 1u << kPageBits;
  static constexpr uint32_t kNumPages = 1u << (32 - kPageBits);

  Memory();
  ~Memory();
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  // Host side: not subject to ACLs. Ranges may not wrap past 0xFFFFFFFF (InputError).
  void write(uint32_t addr, const void* src, size_t size);
  void read(uint32_t addr, void* dst, size_t size) const;
  void fill(uint32_t addr, uint8_t value, size_t size);

  // ACL: a later range overrides earlier ones where they overlap. Addresses outside every
  // range are unrestricted (as SimX: "regions with no ACL are unrestricted").
  void set_access(uint32_t base, uint64_t size, Access access);
  void clear_access(uint32_t base, uint64_t size);  // back to unrestricted
  void clear_all_access();
  // The access in force at addr (kReadWrite when no range covers it).
  Access access_at(uint32_t addr) const;
  const std::vector<AclRange>& acl() const { return acl_; }

  // Called with [addr, addr+size) after every host write (the simulator drops decoded code).
  void set_write_listener(std::function<void(uint32_t, size_t)> listener) { listener_ = std::move(listener); }

  // Resident pages (for reports).
  size_t allocated_pages() const { return allocated_pages_; }

  // ---- kernel-side hot path (used by the simulator core) ----
  // Pointer to the page's bytes if it is allocated and loads (stores) anywhere in it need no
  // ACL check, else null (then use kernel_load / kernel_store).
  const uint8_t* fast_load_page(uint32_t addr) const { return load_pages_[addr >> kPageBits]; }
  uint8_t* fast_store_page(uint32_t addr) const { return store_pages_[addr >> kPageBits]; }
  // Checked kernel access of 1..4 bytes inside one page; returns false on an ACL violation.
  bool kernel_load(uint32_t addr, void* dst, uint32_t size) const;
  bool kernel_store(uint32_t addr, const void* src, uint32_t size);

 private:
  uint8_t* page_for_write(uint32_t page);
  void refresh_fast_pages(uint32_t first_page, uint32_t last_page);
  bool range_allows(uint32_t addr, uint32_t size, Access need) const;

  uint8_t** pages_ = nullptr;        // kNumPages entries, lazily zero (calloc)
  const uint8_t** load_pages_ = nullptr;
  uint8_t** store_pages_ = nullptr;
  std::unique_ptr<uint8_t[]> pattern_page_;  // shared read-only 0xbaadf00d page
  std::vector<AclRange> acl_;
  size_t allocated_pages_ = 0;
  std::function<void(uint32_t, size_t)> listener_;
};

}  // namespace vxsynth::vxsim
