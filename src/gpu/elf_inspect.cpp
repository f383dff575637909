#include "gpu/elf_inspect.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace vxsynth::gpu {
namespace {

// ELF64 constants (System V ABI, ELF-64 Object File Format 1.5).
constexpr std::uint16_t kTypeDyn = 3;
constexpr std::uint32_t kSectionDynsym = 11;
constexpr std::uint32_t kSectionDynamic = 6;
constexpr std::int64_t kTagNull = 0;
constexpr std::int64_t kTagNeeded = 1;
constexpr std::uint16_t kSectionUndefined = 0;
constexpr unsigned kBindGlobal = 1;
constexpr unsigned kBindWeak = 2;
constexpr unsigned kTypeFunc = 2;

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& source) : bytes_(bytes), source_(source) {}

  template <typename T>
  T read(std::uint64_t offset, const char* what) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) {
      throw InputError(source_, what, "points outside the file (truncated or not an ELF object)");
    }
    T value;
    std::memcpy(&value, bytes_.data() + offset, sizeof(T));
    return value;
  }

  std::string c_string(std::uint64_t table_offset, std::uint64_t table_size, std::uint64_t index,
                       const char* what) const {
    if (index >= table_size || table_offset + table_size > bytes_.size()) {
      throw InputError(source_, what, "string index outside its string table");
    }
    const char* begin = bytes_.data() + table_offset + index;
    const std::size_t max_len = table_size - index;
    const std::size_t len = strnlen(begin, max_len);
    if (len == max_len) throw InputError(source_, what, "string not terminated inside its table");
    return std::string(begin, len);
  }

  std::size_t size() const { return bytes_.size(); }
  const std::string& source() const { return source_; }

 private:
  const std::string& bytes_;
  const std::string& source_;
};

struct Section {
  std::uint32_t type = 0;
  std::uint32_t link = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t entry_size = 0;
};

}  // namespace

bool ElfDynamicInfo::exports(const std::string& name) const {
  for (const auto& s : defined) {
    if (s.name == name) return true;
  }
  return false;
}

ElfDynamicInfo inspect_elf_bytes(const std::string& bytes, const std::string& source) {
  if (bytes.size() < 64 || std::memcmp(bytes.data(), "\x7f" "ELF", 4) != 0) {
    throw InputError(source, "ELF header", "not an ELF file (no \\x7fELF magic)");
  }
  if (bytes[4] != 2 || bytes[5] != 1) {
    throw InputError(source, "ELF header", "expected a 64-bit little-endian ELF object");
  }
  Reader r(bytes, source);
  if (r.read<std::uint16_t>(16, "e_type") != kTypeDyn) {
    throw InputError(source, "e_type", "expected a shared object (ET_DYN)");
  }
  const auto sh_offset = r.read<std::uint64_t>(40, "e_shoff");
  const auto sh_entry_size = r.read<std::uint16_t>(58, "e_shentsize");
  const auto sh_count = r.read<std::uint16_t>(60, "e_shnum");
  if (sh_count == 0 || sh_entry_size < 64) {
    throw InputError(source, "section headers", "missing (a stripped object cannot be inspected)");
  }
  std::vector<Section> sections(sh_count);
  for (std::uint16_t i = 0; i < sh_count; ++i) {
    const std::uint64_t base = sh_offset + std::uint64_t{i} * sh_entry_size;
    sections[i].type = r.read<std::uint32_t>(base + 4, "section header");
    sections[i].offset = r.read<std::uint64_t>(base + 24, "section header");
    sections[i].size = r.read<std::uint64_t>(base + 32, "section header");
    sections[i].link = r.read<std::uint32_t>(base + 40, "section header");
    sections[i].entry_size = r.read<std::uint64_t>(base + 56, "section header");
  }
  auto linked_strings = [&](const Section& s, const char* what) -> const Section& {
    if (s.link >= sections.size()) throw InputError(source, what, "string table index out of range");
    return sections[s.link];
  };

  ElfDynamicInfo info;
  bool saw_dynamic = false;
  for (const Section& s : sections) {
    if (s.type == kSectionDynamic) {
      saw_dynamic = true;
      const Section& strings = linked_strings(s, ".dynamic");
      const std::uint64_t entry = s.entry_size ? s.entry_size : 16;
      for (std::uint64_t off = 0; off + entry <= s.size; off += entry) {
        const auto tag = r.read<std::int64_t>(s.offset + off, ".dynamic entry");
        if (tag == kTagNull) break;
        if (tag == kTagNeeded) {
          const auto value = r.read<std::uint64_t>(s.offset + off + 8, ".dynamic entry");
          info.needed.push_back(r.c_string(strings.offset, strings.size, value, "DT_NEEDED"));
        }
      }
    } else if (s.type == kSectionDynsym) {
      const Section& strings = linked_strings(s, ".dynsym");
      const std::uint64_t entry = s.entry_size ? s.entry_size : 24;
      for (std::uint64_t off = entry; off + entry <= s.size; off += entry) {  // entry 0 is null
        const std::uint64_t base = s.offset + off;
        const auto name_index = r.read<std::uint32_t>(base, ".dynsym entry");
        const auto st_info = r.read<std::uint8_t>(base + 4, ".dynsym entry");
        const auto shndx = r.read<std::uint16_t>(base + 6, ".dynsym entry");
        const unsigned bind = st_info >> 4;
        const unsigned type = st_info & 0xf;
        ElfSymbol sym;
        sym.name = r.c_string(strings.offset, strings.size, name_index, ".dynsym name");
        if (sym.name.empty()) continue;
        sym.weak = bind == kBindWeak;
        sym.function = type == kTypeFunc;
        if (shndx == kSectionUndefined) {
          info.undefined.push_back(std::move(sym));
        } else if (bind == kBindGlobal || bind == kBindWeak) {
          info.defined.push_back(std::move(sym));
        }
      }
    }
  }
  if (!saw_dynamic) throw InputError(source, ".dynamic", "no dynamic section (not a shared object)");
  return info;
}

ElfDynamicInfo inspect_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open the shared object");
  std::ostringstream ss;
  ss << in.rdbuf();
  return inspect_elf_bytes(ss.str(), path);
}

}  // namespace vxsynth::gpu
