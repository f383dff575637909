// Program parsing: ELF32 RISC-V executables (PT_LOAD segments, .debug_line) and .vxbin.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "vxsim/program.h"

namespace vxsynth::vxsim {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Bounds-checked little-endian reader; errors name the file and the field.
class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, std::string name, size_t pos = 0) : b_(bytes), name_(std::move(name)), pos_(pos) {}
  template <typename T>
  T get(const char* field) {
    need(sizeof(T), field);
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  template <typename T>
  T at(size_t off, const char* field) const {
    if (off > b_.size() || b_.size() - off < sizeof(T)) fail(field, "truncated (offset " + hex(off) + ")");
    T v;
    std::memcpy(&v, b_.data() + off, sizeof(T));
    return v;
  }
  uint64_t uleb(const char* field) {
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      uint8_t byte = get<uint8_t>(field);
      if (shift < 64) v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
  }
  int64_t sleb(const char* field) {
    int64_t v = 0;
    unsigned shift = 0;
    uint8_t byte;
    do {
      byte = get<uint8_t>(field);
      if (shift < 64) v |= static_cast<int64_t>(byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40)) v |= -(int64_t{1} << shift);
    return v;
  }
  std::string cstr(const char* field) {
    size_t start = pos_;
    while (pos_ < b_.size() && b_[pos_] != 0) ++pos_;
    if (pos_ >= b_.size()) fail(field, "unterminated string");
    return std::string(reinterpret_cast<const char*>(b_.data() + start), pos_++ - start);
  }
  void skip(size_t n, const char* field) {
    need(n, field);
    pos_ += n;
  }
  size_t pos() const { return pos_; }
  void seek(size_t p) { pos_ = p; }
  size_t size() const { return b_.size(); }
  [[noreturn]] void fail(const char* field, const std::string& what) const { throw InputError(name_, field, what); }

 private:
  void need(size_t n, const char* field) const {
    if (pos_ > b_.size() || b_.size() - pos_ < n) fail(field, "truncated at offset " + hex(pos_));
  }
  std::span<const uint8_t> b_;
  std::string name_;
  size_t pos_;
};

std::string str_at(std::span<const uint8_t> sec, uint64_t off) {
  if (off >= sec.size()) return "?";
  const char* s = reinterpret_cast<const char*>(sec.data() + off);
  return std::string(s, strnlen(s, sec.size() - off));
}

// DWARF 2..5 .debug_line (32-bit DWARF). Malformed units are skipped, never fatal: line
// information only decorates fault reports.
void parse_debug_line(std::span<const uint8_t> sec, std::span<const uint8_t> line_str, std::span<const uint8_t> str,
                      const std::string& name, LineTable& out) {
  Reader r(sec, name + " .debug_line");
  while (r.pos() + 4 <= r.size()) {
    const size_t unit_start = r.pos();
    const uint32_t unit_length = r.get<uint32_t>("unit_length");
    if (unit_length == 0xffffffffu || unit_length > r.size() - r.pos()) return;  // 64-bit DWARF or junk
    const size_t unit_end = r.pos() + unit_length;
    try {
      const uint16_t version = r.get<uint16_t>("version");
      if (version < 2 || version > 5) {
        r.seek(unit_end);
        continue;
      }
      if (version >= 5) r.skip(2, "address_size");
      const uint32_t header_length = r.get<uint32_t>("header_length");
      const size_t program_start = r.pos() + header_length;
      const uint8_t min_inst = r.get<uint8_t>("minimum_instruction_length");
      if (version >= 4) r.skip(1, "maximum_operations_per_instruction");
      r.skip(1, "default_is_stmt");
      const int8_t line_base = r.get<int8_t>("line_base");
      const uint8_t line_range = r.get<uint8_t>("line_range");
      const uint8_t opcode_base = r.get<uint8_t>("opcode_base");
      std::vector<uint8_t> std_lengths(opcode_base > 0 ? opcode_base - 1 : 0);
      for (auto& l : std_lengths) l = r.get<uint8_t>("standard_opcode_lengths");
      if (line_range == 0) throw InputError("line_range 0");

      std::vector<std::string> dirs;
      std::vector<std::string> files;  // full names, in the unit's own numbering
      auto join = [](const std::string& dir, const std::string& file) {
        if (file.empty() || file[0] == '/' || dir.empty()) return file;
        return dir + "/" + file;
      };
      if (version >= 5) {
        auto read_form = [&](uint64_t form, std::string* text, uint64_t* number) {
          switch (form) {
            case 0x08: *text = r.cstr("string"); break;                                   // DW_FORM_string
            case 0x1f: *text = str_at(line_str, r.get<uint32_t>("line_strp")); break;     // DW_FORM_line_strp
            case 0x0e: *text = str_at(str, r.get<uint32_t>("strp")); break;               // DW_FORM_strp
            case 0x0f: *number = r.uleb("udata"); break;                                  // DW_FORM_udata
            case 0x0b: *number = r.get<uint8_t>("data1"); break;
            case 0x05: *number = r.get<uint16_t>("data2"); break;
            case 0x06: *number = r.get<uint32_t>("data4"); break;
            case 0x07: *number = r.get<uint64_t>("data8"); break;
            case 0x1e: r.skip(16, "data16"); break;
            case 0x09: r.skip(r.uleb("block"), "block"); break;
            default: throw InputError("unsupported DWARF form " + hex(form));
          }
        };
        auto read_entries = [&](bool is_file) {
          const uint8_t nformats = r.get<uint8_t>("entry_format_count");
          std::vector<std::pair<uint64_t, uint64_t>> formats(nformats);
          for (auto& f : formats) f = {r.uleb("content_type"), r.uleb("form")};
          const uint64_t count = r.uleb("entries_count");
          for (uint64_t i = 0; i < count; ++i) {
            std::string path;
            uint64_t dir = 0;
            for (auto [type, form] : formats) {
              std::string text;
              uint64_t number = 0;
              read_form(form, &text, &number);
              if (type == 1) path = text;     // DW_LNCT_path
              if (type == 2) dir = number;    // DW_LNCT_directory_index
            }
            if (is_file) files.push_back(join(dir < dirs.size() ? dirs[dir] : "", path));
            else dirs.push_back(path);
          }
        };
        read_entries(false);
        read_entries(true);
      } else {
        dirs.push_back("");  // index 0: the compilation directory (not recorded here)
        for (std::string d = r.cstr("include_directories"); !d.empty(); d = r.cstr("include_directories")) dirs.push_back(d);
        files.push_back("");  // v2..4 files are 1-based
        for (std::string f = r.cstr("file_names"); !f.empty(); f = r.cstr("file_names")) {
          const uint64_t dir = r.uleb("directory_index");
          r.uleb("mtime");
          r.uleb("length");
          files.push_back(join(dir < dirs.size() ? dirs[dir] : "", f));
        }
      }
      const uint32_t file_base = static_cast<uint32_t>(out.files.size());
      out.files.insert(out.files.end(), files.begin(), files.end());

      r.seek(program_start);
      uint32_t address = 0, file = 1, line = 1;
      auto emit = [&](bool end) {
        out.rows.push_back({address, end ? 0u : line, file_base + std::min<uint32_t>(file, files.empty() ? 0 : files.size() - 1)});
      };
      while (r.pos() < unit_end) {
        const uint8_t op = r.get<uint8_t>("opcode");
        if (op >= opcode_base) {
          const uint32_t adjusted = op - opcode_base;
          address += (adjusted / line_range) * min_inst;
          line += line_base + static_cast<int32_t>(adjusted % line_range);
          emit(false);
          continue;
        }
        switch (op) {
          case 0: {
            const uint64_t len = r.uleb("extended_length");
            const size_t next = r.pos() + len;
            const uint8_t sub = len > 0 ? r.get<uint8_t>("extended_opcode") : 0;
            if (sub == 1) {
              emit(true);
              address = 0, file = 1, line = 1;
            } else if (sub == 2 && len == 5) {
              address = r.get<uint32_t>("set_address");
            }
            r.seek(next);
            break;
          }
          case 1: emit(false); break;
          case 2: address += static_cast<uint32_t>(r.uleb("advance_pc") * min_inst); break;
          case 3: line += static_cast<int32_t>(r.sleb("advance_line")); break;
          case 4: file = static_cast<uint32_t>(r.uleb("set_file")); break;
          case 5: r.uleb("set_column"); break;
          case 8: address += ((255 - opcode_base) / line_range) * min_inst; break;
          case 9: address += r.get<uint16_t>("fixed_advance_pc"); break;
          default:
            for (uint8_t i = 0; i < std_lengths[op - 1]; ++i) r.uleb("operand");
            break;
        }
      }
    } catch (const InputError&) {
      // Skip a unit we cannot read.
    }
    r.seek(std::max(unit_end, unit_start + 4));
  }
}

ProgramImage parse_elf(std::span<const uint8_t> b, const std::string& name) {
  Reader r(b, name);
  if (b.size() < 52) r.fail("e_ident", "file too small for an ELF32 header (52 bytes)");
  if (b[4] != 1) r.fail("e_ident[EI_CLASS]", "expected ELFCLASS32 (1, RV32), got " + std::to_string(b[4]));
  if (b[5] != 1) r.fail("e_ident[EI_DATA]", "expected little-endian (1), got " + std::to_string(b[5]));
  const uint16_t type = r.at<uint16_t>(16, "e_type");
  const uint16_t machine = r.at<uint16_t>(18, "e_machine");
  if (machine != 243) r.fail("e_machine", "expected EM_RISCV (243), got " + std::to_string(machine));
  if (type != 2) r.fail("e_type", "expected ET_EXEC (2, a linked executable), got " + std::to_string(type));
  const uint32_t flags = r.at<uint32_t>(36, "e_flags");
  if (flags & 1) r.fail("e_flags", "compressed instructions (RVC) are not supported by Vortex 2.x; build without 'c'");

  ProgramImage img;
  img.info.source = name;
  img.info.format = ProgramFormat::kElf32;
  img.info.entry = r.at<uint32_t>(24, "e_entry");
  const uint32_t phoff = r.at<uint32_t>(28, "e_phoff");
  const uint32_t shoff = r.at<uint32_t>(32, "e_shoff");
  const uint16_t phentsize = r.at<uint16_t>(42, "e_phentsize");
  const uint16_t phnum = r.at<uint16_t>(44, "e_phnum");
  const uint16_t shentsize = r.at<uint16_t>(46, "e_shentsize");
  const uint16_t shnum = r.at<uint16_t>(48, "e_shnum");
  const uint16_t shstrndx = r.at<uint16_t>(50, "e_shstrndx");
  if (phnum > 0 && phentsize < 32) r.fail("e_phentsize", "expected >= 32");

  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint32_t i = 0; i < phnum; ++i) {
    const size_t ph = phoff + size_t{i} * phentsize;
    if (r.at<uint32_t>(ph, "p_type") != 1) continue;  // PT_LOAD
    const uint32_t offset = r.at<uint32_t>(ph + 4, "p_offset");
    const uint32_t vaddr = r.at<uint32_t>(ph + 8, "p_vaddr");
    const uint32_t filesz = r.at<uint32_t>(ph + 16, "p_filesz");
    const uint32_t memsz = r.at<uint32_t>(ph + 20, "p_memsz");
    const uint32_t pflags = r.at<uint32_t>(ph + 24, "p_flags");
    const std::string field = "program header " + std::to_string(i);
    if (memsz == 0) continue;
    if (filesz > memsz) r.fail(field.c_str(), "p_filesz larger than p_memsz");
    if (uint64_t{offset} + filesz > b.size()) r.fail(field.c_str(), "segment data runs past the end of the file");
    if (uint64_t{vaddr} + memsz > (1ull << 32)) r.fail(field.c_str(), "segment runs past the 32-bit address space");
    if (vaddr < 0x10000) r.fail(field.c_str(), "segment at " + hex(vaddr) + " overlaps the IO region [0, 0x10000)");
    if (uint64_t{vaddr} + memsz > 0xFFFF0000u) {
      r.fail(field.c_str(), "segment ends at " + hex(uint64_t{vaddr} + memsz) + ", inside the local-memory window [0xFFFF0000, 2^32)");
    }
    img.info.segments.push_back({vaddr, filesz, memsz, (pflags & 2) != 0, (pflags & 1) != 0});
    img.segment_bytes.emplace_back(b.begin() + offset, b.begin() + offset + filesz);
    lo = std::min<uint64_t>(lo, vaddr);
    hi = std::max<uint64_t>(hi, uint64_t{vaddr} + memsz);
  }
  if (img.info.segments.empty()) r.fail("program headers", "no loadable (PT_LOAD) segment");
  img.info.min_vma = static_cast<uint32_t>(lo);
  img.info.max_vma = static_cast<uint32_t>(std::min<uint64_t>(hi, 0xffffffffu));
  if (img.info.entry & 3) r.fail("e_entry", "entry point " + hex(img.info.entry) + " is not 4-byte aligned");

  // Sections: only for line information; a stripped file simply has none.
  if (shoff != 0 && shnum != 0 && shentsize >= 40 && shstrndx < shnum) {
    try {
      auto section = [&](uint32_t idx) {
        const size_t sh = shoff + size_t{idx} * shentsize;
        const uint32_t off = r.at<uint32_t>(sh + 16, "sh_offset"), size = r.at<uint32_t>(sh + 20, "sh_size");
        if (uint64_t{off} + size > b.size()) r.fail("section header", "section runs past the end of the file");
        return b.subspan(off, size);
      };
      auto shstr = section(shstrndx);
      std::span<const uint8_t> debug_line, debug_line_str, debug_str, symtab, strtab;
      for (uint32_t i = 0; i < shnum; ++i) {
        const std::string sname = str_at(shstr, r.at<uint32_t>(shoff + size_t{i} * shentsize, "sh_name"));
        if (sname == ".debug_line") debug_line = section(i);
        else if (sname == ".debug_line_str") debug_line_str = section(i);
        else if (sname == ".debug_str") debug_str = section(i);
        else if (sname == ".symtab") symtab = section(i);
        else if (sname == ".strtab") strtab = section(i);
      }
      // Elf32_Sym: name, value, size (4 bytes each), info, other (1 byte), shndx (2 bytes).
      for (size_t off = 16; off + 16 <= symtab.size(); off += 16) {
        const uint8_t info = symtab[off + 12];
        if ((info & 0xf) != 2) continue;  // STT_FUNC
        uint32_t name_off = 0, value = 0, size = 0;
        std::memcpy(&name_off, symtab.data() + off, 4);
        std::memcpy(&value, symtab.data() + off + 4, 4);
        std::memcpy(&size, symtab.data() + off + 8, 4);
        img.functions.push_back({str_at(strtab, name_off), value, size});
      }
      std::sort(img.functions.begin(), img.functions.end(),
                [](const FunctionSymbol& a, const FunctionSymbol& c) { return a.address < c.address; });
      if (!debug_line.empty()) {
        parse_debug_line(debug_line, debug_line_str, debug_str, name, img.lines);
        std::stable_sort(img.lines.rows.begin(), img.lines.rows.end(), [](const LineRow& a, const LineRow& c) {
          if (a.address != c.address) return a.address < c.address;
          return (a.line == 0) > (c.line == 0);  // a sequence end sorts before a start at the same address
        });
        img.info.has_line_info = !img.lines.rows.empty();
      }
    } catch (const InputError&) {
      img.lines = LineTable{};  // broken debug sections: run without line info
    }
  }
  return img;
}

ProgramImage parse_vxbin(std::span<const uint8_t> b, const std::string& name) {
  Reader r(b, name);
  if (b.size() < 16) r.fail("header", "a .vxbin starts with u64 min_vma and u64 max_vma (16 bytes); file has " + std::to_string(b.size()));
  const uint64_t min_vma = r.get<uint64_t>("min_vma");
  const uint64_t max_vma = r.get<uint64_t>("max_vma");
  size_t image_end = b.size();
  uint32_t entry = static_cast<uint32_t>(min_vma);
  // Vortex 3.x VXSYMTAB footer: ... entries {u32 name_off, u16 name_len, u16 pad, u64 pc}, u32 N, "VXSYMTAB".
  if (b.size() >= 16 + 12 && std::memcmp(b.data() + b.size() - 8, "VXSYMTAB", 8) == 0) {
    const uint32_t n = r.at<uint32_t>(b.size() - 12, "VXSYMTAB count");
    const uint64_t entries_size = uint64_t{n} * 16;
    if (entries_size + 12 + 16 > b.size()) r.fail("VXSYMTAB", "symbol count " + std::to_string(n) + " does not fit the file");
    const size_t entries = b.size() - 12 - entries_size;
    size_t blob = 0;
    for (uint32_t i = 0; i < n; ++i) blob = std::max<size_t>(blob, size_t{r.at<uint32_t>(entries + 16 * i, "name_off")} + r.at<uint16_t>(entries + 16 * i + 4, "name_len"));
    if (blob > entries - 16) r.fail("VXSYMTAB", "name blob does not fit the file");
    for (uint32_t i = 0; i < n; ++i) {
      const size_t e = entries + 16 * i;
      const size_t noff = entries - blob + r.at<uint32_t>(e, "name_off");
      const std::string sym(reinterpret_cast<const char*>(b.data() + noff), r.at<uint16_t>(e + 4, "name_len"));
      if (sym == "main") entry = static_cast<uint32_t>(r.at<uint64_t>(e + 8, "pc"));
    }
    image_end = entries - blob;
  }
  const uint64_t image_size = image_end - 16;
  if (min_vma >= (1ull << 32) || max_vma > (1ull << 32)) {
    r.fail("min_vma/max_vma", "expected 32-bit addresses (RV32), got " + hex(min_vma) + ".." + hex(max_vma));
  }
  if (min_vma < 0x10000) r.fail("min_vma", "image at " + hex(min_vma) + " overlaps the IO region [0, 0x10000)");
  if (max_vma > 0xFFFF0000u) r.fail("max_vma", "image ends inside the local-memory window [0xFFFF0000, 2^32)");
  if (max_vma < min_vma + image_size) {
    r.fail("max_vma", "max_vma " + hex(max_vma) + " is below min_vma + image size (" + hex(min_vma + image_size) + ")");
  }
  ProgramImage img;
  img.info.source = name;
  img.info.format = ProgramFormat::kVxbin;
  img.info.entry = entry;
  img.info.min_vma = static_cast<uint32_t>(min_vma);
  img.info.max_vma = static_cast<uint32_t>(std::min<uint64_t>(max_vma, 0xffffffffu));
  // As vx_upload_kernel_bytes: the file image read-only, the rest up to max_vma read-write.
  img.info.segments.push_back({img.info.min_vma, static_cast<uint32_t>(image_size), static_cast<uint32_t>(image_size), false, true});
  img.segment_bytes.emplace_back(b.begin() + 16, b.begin() + static_cast<ptrdiff_t>(image_end));
  const uint64_t rest = max_vma - min_vma - image_size;
  if (rest > 0) {
    img.info.segments.push_back({static_cast<uint32_t>(min_vma + image_size), 0, static_cast<uint32_t>(rest), true, false});
    img.segment_bytes.emplace_back();
  }
  return img;
}

}  // namespace

std::string LineTable::lookup(uint32_t pc) const {
  auto it = std::upper_bound(rows.begin(), rows.end(), pc, [](uint32_t a, const LineRow& row) { return a < row.address; });
  if (it == rows.begin()) return {};
  --it;
  if (it->line == 0 || it->file >= files.size()) return {};
  return files[it->file] + ":" + std::to_string(it->line);
}

ProgramImage parse_program(std::span<const uint8_t> bytes, const std::string& name) {
  if (bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F') return parse_elf(bytes, name);
  return parse_vxbin(bytes, name);
}

ProgramImage parse_program_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open the program file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_program(bytes, path);
}

}  // namespace vxsynth::vxsim
