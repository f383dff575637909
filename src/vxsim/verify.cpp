// The split/join verifier (verify.h): an abstract walk over each function's instructions whose
// state is the list of SPLITs still open on the path.
#include "vxsim/verify.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "vxsim/decode.h"

namespace vxsynth::vxsim {

namespace {

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::string demangle(const std::string& name) {
  int status = 0;
  char* text = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (text == nullptr) return name;
  std::string out = status == 0 ? text : name;
  std::free(text);
  return out;
}

class Walker {
 public:
  explicit Walker(const ProgramImage& image) : image_(image) { report_.program = image.info.source; }

  VerifyReport run() {
    std::set<uint32_t> roots;
    roots.insert(image_.info.entry);
    for (const FunctionSymbol& f : image_.functions) {
      if (fetch(f.address)) roots.insert(f.address);
    }
    function_starts_ = roots;
    std::set<uint32_t> done;
    while (!roots.empty()) {
      const uint32_t root = *roots.begin();
      roots.erase(roots.begin());
      if (!done.insert(root).second) continue;
      ++report_.functions;
      walk(root, roots);
    }
    for (const auto& [split, joins] : joins_of_) {
      if (joins.size() < 2) continue;
      std::string list;
      for (uint32_t j : joins) list += (list.empty() ? "" : ", ") + where(j);
      issue(split, "SPLIT reaches " + std::to_string(joins.size()) + " different JOINs (" + list +
                       "): the first lane subset waits at one, the second continues after the other; an optimizer "
                       "copied the region's join");
    }
    std::sort(report_.issues.begin(), report_.issues.end(),
              [](const VerifyIssue& a, const VerifyIssue& b) { return a.pc < b.pc; });
    return report_;
  }

 private:
  using State = std::vector<uint32_t>;  // pcs of the SPLITs open on this path, innermost last

  const ProgramImage& image_;
  VerifyReport report_;
  std::set<uint32_t> function_starts_;
  std::map<uint32_t, std::set<uint32_t>> joins_of_;  // split pc -> join pcs that popped it
  std::set<std::pair<uint32_t, std::string>> reported_;
  std::set<uint32_t> counted_splits_, counted_joins_;

  std::optional<uint32_t> fetch(uint32_t pc) const {
    for (size_t i = 0; i < image_.info.segments.size(); ++i) {
      const LoadedSegment& s = image_.info.segments[i];
      if (!s.executable || pc < s.vaddr || pc - s.vaddr + 4 > s.file_size || (pc & 3) != 0) continue;
      uint32_t word = 0;
      std::memcpy(&word, image_.segment_bytes[i].data() + (pc - s.vaddr), 4);
      return word;
    }
    return std::nullopt;
  }

  std::string function_of(uint32_t pc) const {
    const auto& fs = image_.functions;
    auto it = std::upper_bound(fs.begin(), fs.end(), pc, [](uint32_t a, const FunctionSymbol& f) { return a < f.address; });
    while (it != fs.begin()) {
      --it;
      if (pc < it->address + std::max<uint32_t>(it->size, 1)) return demangle(it->name);
      if (it->size != 0) break;
    }
    return "?";
  }

  // file:line of pc; for code inlined from a header (vx_split and friends), the nearest
  // earlier line of the function's own source first: "kernel.cpp:17 (vx_intrinsics.h:109)".
  std::string source_of(uint32_t pc) const {
    const std::string line = image_.lines.lookup(pc);
    auto is_header = [](const std::string& l) {
      const size_t colon = l.rfind(':');
      const std::string file = l.substr(0, colon);
      return file.size() > 2 && (file.ends_with(".h") || file.ends_with(".hpp"));
    };
    if (line.empty() || !is_header(line)) return line;
    const auto& rows = image_.lines.rows;
    auto it = std::upper_bound(rows.begin(), rows.end(), pc, [](uint32_t a, const LineRow& r) { return a < r.address; });
    const std::string function = function_of(pc);
    while (it != rows.begin()) {
      --it;
      if (it->line == 0 || it->file >= image_.lines.files.size()) continue;
      if (function_of(it->address) != function) break;
      const std::string candidate = image_.lines.files[it->file] + ":" + std::to_string(it->line);
      if (!is_header(candidate)) return candidate + " (" + line + ")";
    }
    return line;
  }

  std::string where(uint32_t pc) const {
    const std::string line = source_of(pc);
    return hex(pc) + (line.empty() ? "" : " " + line);
  }

  void issue(uint32_t pc, const std::string& message) {
    if (!reported_.insert({pc, message}).second) return;
    report_.issues.push_back({pc, function_of(pc), source_of(pc), message});
  }

  static std::string describe(const State& s) {
    if (s.empty()) return "no open SPLIT";
    std::string out = "open SPLIT at ";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + hex(s[i]);
    return out;
  }

  void leave(uint32_t pc, const State& state, const char* how) {
    if (state.empty()) return;
    issue(pc, std::string(how) + " inside the divergent region of the SPLIT at " + where(state.back()) +
                  ": the region never reaches its JOIN on this path");
  }

  void walk(uint32_t root, std::set<uint32_t>& roots) {
    std::map<uint32_t, State> seen;
    std::vector<std::pair<uint32_t, State>> work = {{root, {}}};
    while (!work.empty()) {
      auto [pc, state] = std::move(work.back());
      work.pop_back();
      auto [it, inserted] = seen.try_emplace(pc, state);
      if (!inserted) {
        if (it->second != state) {
          issue(pc, "reached with " + describe(it->second) + " on one path and " + describe(state) +
                        " on another: a divergent region is entered or left sideways");
        }
        continue;
      }
      const std::optional<uint32_t> word = fetch(pc);
      const std::optional<InsnId> id = word ? decode_id(*word) : std::nullopt;
      if (!id) {
        leave(pc, state, word ? "an undecodable word" : "control leaves the code");
        continue;
      }
      const InsnInfo& info = insn_table()[static_cast<size_t>(*id)];
      const Fields f = decode_fields(*word, info.format);
      auto next = [&](uint32_t to, State s) { work.emplace_back(to, std::move(s)); };
      switch (*id) {
        case InsnId::split:
        case InsnId::split_n:
          if (counted_splits_.insert(pc).second) ++report_.splits;
          state.push_back(pc);
          next(pc + 4, std::move(state));
          continue;
        case InsnId::join:
          if (counted_joins_.insert(pc).second) ++report_.joins;
          if (state.empty()) {
            issue(pc, "JOIN with no open SPLIT on some path into it");
          } else {
            joins_of_[state.back()].insert(pc);
            state.pop_back();
          }
          next(pc + 4, std::move(state));
          continue;
        case InsnId::jal: {
          const uint32_t target = pc + static_cast<uint32_t>(f.imm);
          if (f.rd != 0) {  // a call: the callee is walked on its own and must be balanced
            roots.insert(target);
            next(pc + 4, std::move(state));
          } else if (function_starts_.count(target) != 0 && target != root) {
            leave(pc, state, "a tail call");
          } else {
            next(target, std::move(state));
          }
          continue;
        }
        case InsnId::jalr:
          if (f.rd != 0) {
            next(pc + 4, std::move(state));
          } else {
            leave(pc, state, f.rs1 == 1 ? "a return" : "an indirect jump");
          }
          continue;
        case InsnId::tmc:
          if (f.rs1 == 0) {  // tmc zero: the warp stops here
            continue;
          }
          next(pc + 4, std::move(state));
          continue;
        case InsnId::mret:
        case InsnId::wfi:
          leave(pc, state, "a trap return or wait");
          continue;
        default:
          break;
      }
      if (info.shape == Shape::Branch) {
        next(pc + static_cast<uint32_t>(f.imm), state);
      }
      next(pc + 4, std::move(state));
    }
  }
};

}  // namespace

std::string VerifyReport::to_string() const {
  std::ostringstream out;
  if (ok()) {
    out << program << ": split/join regions well formed (" << functions << " functions, " << splits << " splits, "
        << joins << " joins)";
    return out.str();
  }
  out << program << ": " << issues.size() << " broken split/join region" << (issues.size() == 1 ? "" : "s") << ":";
  for (const VerifyIssue& i : issues) {
    out << "\n  " << hex(i.pc) << " in " << i.function;
    if (!i.source.empty()) out << " (" << i.source << ")";
    out << ": " << i.message;
  }
  return out.str();
}

VerifyReport verify_split_join(const ProgramImage& image) { return Walker(image).run(); }

VerifyReport verify_split_join_file(const std::string& path) { return verify_split_join(parse_program_file(path)); }

}  // namespace vxsynth::vxsim
