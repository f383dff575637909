// The run loop (scheduling, barriers, spawns, deadlock and budget checks), the one place
// where traps become fault reports, program installation, DCRs and the console.
#include "vxsim/simulator.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "vxsim/core.h"
#include "vxsim/decode.h"

namespace vxsynth::vxsim {

namespace {
// Instructions a warp runs before the scheduler moves on (functional results do not depend
// on it for race-free kernels; larger is faster).
constexpr uint64_t kQuantum = 256;

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}
}  // namespace

namespace {
// Like SimX's memory, the IO block reads 0xbaadf00d until written (so counters a kernel never
// stored read as Vortex's runtime would read them).
std::vector<uint8_t> unwritten_io() {
  std::vector<uint8_t> io(kUserBaseAddr);
  for (size_t i = 0; i < io.size(); i += 4) {
    const uint32_t word = 0xbaadf00du;
    std::memcpy(&io[i], &word, 4);
  }
  return io;
}
}  // namespace

struct Simulator::Internals {
  DecodeCache dcache;
  std::vector<uint8_t> io = unwritten_io();
  LineTable lines;
  bool stop_requested = false;
  uint32_t live_reservations = 0;
};

Simulator::Simulator(const Config& config) : config_(config), internals_(std::make_unique<Internals>()) {
  config_.validate();
  for (uint32_t c = 0; c < config_.cores; ++c) {
    cores_.push_back(std::make_unique<Core>(*this, memory_, internals_->dcache, internals_->io.data(), c));
    cores_.back()->stop_requested = &internals_->stop_requested;
    cores_.back()->live_reservations = &internals_->live_reservations;
  }
  core_counters_.resize(config_.cores);
  console_partial_.resize(static_cast<size_t>(kIoConsoleSize) * config_.cores);
  io_end_ = kIoMpmAddr + kIoMpmCoreStride * config_.cores;
  memory_.set_write_listener([this](uint32_t addr, size_t size) { internals_->dcache.invalidate(addr, size); });
}

Simulator::~Simulator() = default;

ProgramInfo Simulator::install(ProgramImage image, bool apply_acl) {
  for (size_t i = 0; i < image.info.segments.size(); ++i) {
    const LoadedSegment& seg = image.info.segments[i];
    const auto& bytes = image.segment_bytes[i];
    if (!bytes.empty()) memory_.write(seg.vaddr, bytes.data(), bytes.size());
    if (seg.mem_size > seg.file_size) memory_.fill(seg.vaddr + seg.file_size, 0, seg.mem_size - seg.file_size);
    if (apply_acl && seg.mem_size > 0) {
      memory_.set_access(seg.vaddr, seg.mem_size, seg.writable ? Access::kReadWrite : Access::kRead);
    }
  }
  internals_->dcache.clear();
  internals_->lines = std::move(image.lines);
  startup_addr_ = image.info.entry;
  return image.info;
}

ProgramInfo Simulator::load_program(const std::string& path, bool apply_acl) {
  return install(parse_program_file(path), apply_acl);
}

ProgramInfo Simulator::load_program_bytes(std::span<const uint8_t> bytes, const std::string& name, bool apply_acl) {
  return install(parse_program(bytes, name), apply_acl);
}

void Simulator::load_line_info(const std::string& elf_path) {
  ProgramImage image = parse_program_file(elf_path);
  if (image.info.format != ProgramFormat::kElf32) {
    throw InputError(elf_path, "format", "line information needs an ELF file, not a .vxbin");
  }
  internals_->lines = std::move(image.lines);
}

void Simulator::write_dcr(uint32_t addr, uint32_t value) {
  switch (addr) {
    case kDcrStartupAddr0: startup_addr_ = value; return;
    case kDcrStartupArg0: startup_arg_ = value; return;
    case kDcrMpmClass: mpm_class_ = value; return;
    case kDcrStartupAddr1:
    case kDcrStartupArg1:
      if (value != 0) throw InputError("dcr", hex(addr), "high half of a 64-bit value must be 0 on RV32, got " + hex(value));
      return;
    default:
      throw InputError("dcr", hex(addr), "unknown DCR address (expected 0x001..0x005, Vortex 2.x)");
  }
}

uint32_t Simulator::read_dcr(uint32_t addr) const {
  switch (addr) {
    case kDcrStartupAddr0: return startup_addr_;
    case kDcrStartupArg0: return startup_arg_;
    case kDcrMpmClass: return mpm_class_;
    case kDcrStartupAddr1:
    case kDcrStartupArg1: return 0;
    default: throw InputError("dcr", hex(addr), "unknown DCR address (expected 0x001..0x005, Vortex 2.x)");
  }
}

void Simulator::set_console_callback(std::function<void(const ConsoleLine&)> callback) {
  console_callback_ = std::move(callback);
}

std::string console_label(const ConsoleLine& line, uint32_t cores) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "#" + to_string().
  std::string label = "#";
  if (cores > 1) {
    label += std::to_string(line.core);
    label += '.';
  }
  label += std::to_string(line.slot);
  return label;
}

void Simulator::console_put(uint32_t core, uint32_t slot, uint8_t ch) {
  slot %= kIoConsoleSize;
  std::string& line = console_partial_[static_cast<size_t>(core) * kIoConsoleSize + slot];
  if (ch != '\n') {
    line.push_back(static_cast<char>(ch));
    return;
  }
  console_lines_.push_back({slot, line, core});
  line.clear();
  if (console_callback_) console_callback_(console_lines_.back());
}

void Simulator::flush_console() {
  for (uint32_t i = 0; i < console_partial_.size(); ++i) {
    if (!console_partial_[i].empty()) console_put(i / kIoConsoleSize, i % kIoConsoleSize, '\n');
  }
}

std::string Simulator::console_text() const {
  std::string s;
  for (const auto& l : console_lines_) s += l.text + "\n";
  return s;
}

Json Simulator::counters_json() const { return counters_to_json(total_counters_, core_counters_, config_); }

std::span<uint8_t> Simulator::local_memory(uint32_t core) {
  if (core >= cores_.size()) throw InputError("local_memory", "core", "core index out of range");
  return cores_[core]->lmem;
}

void Simulator::invalidate_decoded() { internals_->dcache.clear(); }

std::span<const uint8_t> Simulator::io_block() const { return internals_->io; }

bool Simulator::argument_pointer_read_as_null() const {
  for (const auto& c : cores_)
    if (c->argument_read_as_null) return true;
  return false;
}

void Simulator::write_io(uint32_t addr, const void* data, size_t size) {
  if (addr < kIoMpmAddr || addr > kUserBaseAddr || size > kUserBaseAddr - addr) {
    throw InputError("io", "address", "range [" + hex(addr) + ", +" + std::to_string(size) + ") is outside [" +
                                          hex(kIoMpmAddr) + ", " + hex(kUserBaseAddr) + ")");
  }
  std::memcpy(internals_->io.data() + addr, data, size);
}

void Simulator::map_io(uint32_t end) {
  if (end > kUserBaseAddr) throw InputError("io", "end", "expected at most " + hex(kUserBaseAddr) + ", got " + hex(end));
  io_end_ = std::max(io_end_, end);
}

void Simulator::note_exit_store() {
  if (run_exit_code_ != 0) return;
  std::memcpy(&run_exit_code_, &internals_->io[kIoExitCodeAddr], 4);
}

std::string Simulator::disassemble(uint32_t word, uint32_t pc) { return vxsim::disassemble(word, pc); }

RunResult Simulator::run() {
  if (startup_addr_ & 3) throw InputError("dcr", "STARTUP_ADDR", "must be 4-byte aligned, got " + hex(startup_addr_));
  console_lines_.clear();
  for (auto& p : console_partial_) p.clear();
  run_exit_code_ = 0;
  internals_->stop_requested = false;
  for (auto& c : cores_) c->reset(startup_addr_, startup_arg_);
  if (consumer_) consumer_->on_run_begin(config_);

  uint64_t budget = config_.max_instructions == 0 ? UINT64_MAX : config_.max_instructions;
  Core* cur_core = nullptr;
  Warp* cur_warp = nullptr;
  RunResult result;

  auto collect = [&] {
    total_counters_ = Counters{};
    spawn_regions_.clear();
    for (size_t i = 0; i < cores_.size(); ++i) {
      Core& core = *cores_[i];
      if (core.region_close_pending) {
        core.close_region(true);
      } else if (core.region_open) {
        core.close_region(false);  // the run ended inside it
      }
      core_counters_[i] = core.ctr;
      total_counters_ += core.ctr;
      spawn_regions_.insert(spawn_regions_.end(), core.regions.begin(), core.regions.end());
    }
    std::stable_sort(spawn_regions_.begin(), spawn_regions_.end(),
                     [](const SpawnRegion& a, const SpawnRegion& b) { return a.index < b.index; });
    flush_console();
  };

  auto fault = [&](const Trap& t) {
    FaultReport r;
    r.kind = t.kind;
    r.message = t.message;
    if (cur_core && cur_warp) {
      r.core = cur_core->id;
      r.warp = cur_warp->id;
      r.pc = cur_warp->pc;
      r.thread_mask = cur_warp->tmask;
      memory_.read(r.pc, &r.instruction, 4);
      r.disassembly = vxsim::disassemble(r.instruction, r.pc);
      r.source_location = internals_->lines.lookup(r.pc);
    }
    r.address = t.address;
    r.lane = t.lane;
    r.taken_mask = t.taken_mask;
    r.not_taken_mask = t.not_taken_mask;
    if (consumer_) consumer_->on_run_end(false);
    collect();
    throw SimFault(std::move(r));
  };

  try {
    for (;;) {
      bool progress = false;
      bool any_active = false;
      for (auto& core : cores_) {
        cur_core = core.get();
        for (Warp& w : core->warps) {
          if (w.tmask == 0 || w.wait != WarpWait::kNone) continue;
          cur_warp = &w;
          if (budget == 0) {
            throw Trap{FaultKind::kBudgetExhausted,
                       "instruction budget of " + std::to_string(config_.max_instructions) + " warp-instructions exhausted",
                       {}, {}, {}, {}};
          }
          uint64_t q = std::min(budget, kQuantum);
          if (consumer_) {
            q = std::min(q, consumer_->wants(core->id, w.id));
            if (q == 0) continue;
          }
          const uint64_t n = consumer_ ? core->run_warp_traced(w, q) : core->run_warp(w, q);
          if (core->region_close_pending) core->close_region(true);
          budget -= n;
          progress = true;
          if (internals_->stop_requested) break;
        }
        cur_warp = nullptr;
        if (internals_->stop_requested) break;
        if (core->resolve_spawns()) progress = true;
        if (core->global_barrier_warps != 0 && core->global_barrier_warps == core->active_warps) {
          core->global_barrier_reported = true;
        }
        any_active |= core->any_active();
      }
      if (internals_->stop_requested) {
        result.stopped_by_ecall = true;
        break;
      }
      // Global barrier: release once `count` cores have all their active warps waiting.
      uint32_t reported = 0, count = 0;
      for (auto& core : cores_) {
        if (core->global_barrier_reported) {
          ++reported;
          count = core->global_barrier_count;
        }
      }
      if (reported > 0 && reported >= count) {
        for (auto& core : cores_) {
          if (core->global_barrier_reported) core->release_global_barrier();
        }
        progress = true;
      }
      if (consumer_ && consumer_->on_round_end()) progress = true;
      if (!any_active) break;
      if (!progress) {
        // Every live warp waits: name the first one and what it waits for.
        for (auto& core : cores_) {
          for (Warp& w : core->warps) {
            if (w.tmask == 0) continue;
            cur_core = core.get();
            cur_warp = &w;
            // Report at the waiting instruction (the PC already moved past it).
            w.pc -= 4;
            std::string what = w.wait == WarpWait::kBarrier         ? "a barrier"
                               : w.wait == WarpWait::kGlobalBarrier ? "the global barrier"
                                                                    : "WSPAWN (other warps still active)";
            std::string waiting;
            uint32_t listed = 0, unlisted = 0;
            for (auto& c2 : cores_) {
              for (Warp& w2 : c2->warps) {
                if (w2.tmask == 0) continue;
                if (listed == 16) {
                  ++unlisted;
                  continue;
                }
                ++listed;
                waiting += " core" + std::to_string(c2->id) + "/warp" + std::to_string(w2.id) + "@" +
                           hex(w2.pc - (&w2 == &w ? 0 : 4)) + (w2.wait == WarpWait::kSpawn ? "(wspawn)" : "(bar)");
              }
            }
            if (unlisted > 0) waiting += " and " + std::to_string(unlisted) + " more";
            throw Trap{FaultKind::kDeadlock, "deadlock: every live warp waits; this one waits for " + what + ". Waiting:" + waiting,
                       {}, {}, {}, {}};
          }
        }
      }
    }
  } catch (const Trap& t) {
    fault(t);
  }
  if (result.stopped_by_ecall) {
    for (auto& core : cores_) {
      for (Warp& w : core->warps) w.tmask = 0;
      core->active_warps = 0;
    }
  }
  if (consumer_) consumer_->on_run_end(true);
  collect();
  result.exit_code = run_exit_code_;
  result.warp_instructions = total_counters_.warp_instructions;
  result.thread_instructions = total_counters_.thread_instructions;
  return result;
}

}  // namespace vxsynth::vxsim
