// vxsynth sim: the embedded Vortex simulator from the command line.
//   sim cc SRC... -o OUT.vxbin   compile a kernel with vortex-rt (OUT.elf, OUT.bin, OUT.dump beside it)
//   sim run KERNEL               run a standalone kernel (like Vortex's simx), exit with its code
//   sim verify KERNEL.elf        check every split/join region of a kernel built elsewhere
//   sim flags --cflags --libs    flags for a host program against vortex.h (like llvm-config)
#include <algorithm>
#include <cinttypes>
#include <vector>
#include <cstdio>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/command.h"
#include "common/error.h"
#include "common/json_io.h"
#include "refine/vortex_signature.h"
#include "signature/signature.h"
#include "vxsim/host/device.h"
#include "vxsim/host/host_flags.h"
#include "vxsim/host/kernel_build.h"
#include "vxsim/program.h"
#include "vxsim/simulator.h"
#include "vxsim/timing/regions.h"
#include "vxsim/timing/vortex2.h"
#include "vxsim/trace.h"
#include "vxsim/verify.h"

namespace vxsynth::cli {
namespace {

namespace fs = std::filesystem;

struct CcOptions {
  vxsim::host::KernelBuildOptions build;
};

struct FlagsOptions {
  bool cflags = false;
  bool libs = false;
  bool prefix = false;
};

struct RunOptions {
  std::string kernel;
  std::optional<uint32_t> cores;
  std::optional<uint32_t> warps;
  std::optional<uint32_t> threads;
  std::optional<uint32_t> local_mem;
  std::optional<uint64_t> max_instrs;
  bool perf = false;
  bool json = false;
  std::string timing;  // "" = none unless --signature asks for it
  std::string signature;
  double clock_mhz = 200.0;
  std::vector<std::string> timing_params;
  std::string timing_config;
  bool plain_console = false;
  std::string trace;          // --trace FILE: one line per executed warp instruction
  uint64_t trace_limit = 1000000;
  bool pc_profile = false;    // --pc-profile: the hottest PCs with their source lines
  size_t pc_top = 20;
};

int run_verify(const std::string& path) {
  if (!fs::is_regular_file(path)) throw InputError(path, "", "kernel file not found");
  const vxsim::VerifyReport report = vxsim::verify_split_join_file(path);
  if (report.ok()) {
    std::cout << report.to_string() << "\n";
    return kExitOk;
  }
  std::cerr << report.to_string() << "\n";
  return kExitWorkFailed;
}

int run_cc(const CcOptions& o) {
  const auto result = vxsim::host::build_kernel(o.build);
  std::cout << "wrote " << result.vxbin << " (" << fs::file_size(result.vxbin) << " bytes), " << result.elf << ", "
            << result.bin << " (for SimX's standalone runner), " << result.dump << "\n";
  return kExitOk;
}

int run_flags(const FlagsOptions& o) {
  if (!o.cflags && !o.libs && !o.prefix) {
    throw InputError("sim flags", "", "expected --cflags, --libs and/or --prefix");
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const auto flags = vxsim::host::host_build_flags(ec ? "" : vxsim::host::installed_prefix_of(self.string()));
  std::string line;
  auto add = [&line](const std::vector<std::string>& words) {
    for (const std::string& word : words) line += (line.empty() ? "" : " ") + word;
  };
  if (o.prefix) add({flags.prefix});
  if (o.cflags) add(flags.cflags);
  if (o.libs) add(flags.libs);
  std::cout << line << "\n";
  return kExitOk;
}

// The process exit status for a kernel exit code: its low byte, but never 0 for a failure.
int exit_status_of(int32_t code) {
  if (code == 0) return 0;
  const int low = code & 0xFF;
  return low != 0 ? low : 1;
}

void print_region_perf(const vxsim::Simulator& sim, const vxsim::timing::Vortex2Model* timing, std::ostream& out) {
  const uint32_t threads = sim.config().threads;
  const auto rows = vxsim::region_rows(sim, timing);
  auto counts = [&](const vxsim::Counters& c) {
    return "warp instrs=" + std::to_string(c.warp_instructions) +
           ", instrs=" + std::to_string(c.simx_thread_instructions(threads)) +
           ", warp loads=" + std::to_string(c.warp_by_class[static_cast<size_t>(vxsim::OpClass::kLoad)]) +
           ", warp stores=" + std::to_string(c.warp_by_class[static_cast<size_t>(vxsim::OpClass::kStore)]);
  };
  for (const auto& r : rows) {
    out << "PERF: region " << r.index << " (vx_spawn_threads on " << r.cores << (r.cores == 1 ? " core" : " cores")
        << ", " << r.warps << (r.warps == 1 ? " warp" : " warps") << (r.closed ? "" : ", still running at the end")
        << "): " << counts(r.counters);
    if (r.timed) {
      char ipc[32];
      std::snprintf(ipc, sizeof ipc, "%f", r.cycles() == 0 ? 0.0 : r.counters.simx_thread_instructions(threads) /
                                                                      static_cast<double>(r.cycles()));
      out << ", cycles=" << r.cycles() << ", IPC=" << ipc;
    }
    out << "\n";
  }
  out << "PERF: outside regions (start-up incl. .bss clearing, serial code): " << counts(vxsim::outside_regions(sim, rows))
      << "\n";
}

void print_perf(const vxsim::Simulator& sim, const vxsim::timing::Vortex2Model* timing, std::ostream& out) {
  const vxsim::Counters& total = sim.counters();
  const auto& cores = sim.core_counters();
  const uint32_t threads = sim.config().threads;
  if (timing) {
    out << "PERF: vxsim with the vortex2 timing model: counters cover the whole run (one launch), then each "
           "vx_spawn_threads region; instrs = thread-instructions, a WMMA counted as its micro-ops as SimX does\n";
  } else {
    out << "PERF: vxsim functional simulator: cycles are not modelled (--timing vortex2 models them); counters "
           "cover the whole run, then each vx_spawn_threads region; instrs = thread-instructions, a WMMA counted "
           "as its micro-ops as SimX does\n";
  }
  // "warp loads/stores" are warp instructions; SimX's "loads="/"stores=" (timing lines) are lane accesses.
  out << "PERF: warp instrs=" << total.warp_instructions << ", active lanes="
      << static_cast<int>(total.active_lane_fraction(threads) * 1000.0 + 0.5) / 10.0 << "%, warp loads="
      << total.warp_by_class[static_cast<size_t>(vxsim::OpClass::kLoad)]
      << ", warp stores=" << total.warp_by_class[static_cast<size_t>(vxsim::OpClass::kStore)]
      << ", divergent splits=" << total.divergent_splits << ", barrier waits=" << total.barrier_waits << "\n";
  if (timing) {
    if (total.tensor_uops != 0) {
      out << "PERF: tensor: wmma=" << total.warp_by_class[static_cast<size_t>(vxsim::OpClass::kTensor)]
          << ", uops=" << total.tensor_uops << ", flops=" << total.tensor_flops << ", int ops=" << total.tensor_int_ops
          << ", thread-instrs with one per WMMA=" << total.thread_instructions << "\n";
    }
    print_region_perf(sim, timing, out);
    vxsim::timing::print_timing_perf(out, timing->summary(), threads);
    return;
  }
  print_region_perf(sim, timing, out);
  if (cores.size() > 1) {
    for (size_t c = 0; c < cores.size(); ++c) {
      out << "PERF: core" << c << ": instrs=" << cores[c].simx_thread_instructions(threads)
          << ", cycles=n/a, IPC=n/a\n";
    }
  }
  if (total.tensor_uops != 0) {
    out << "PERF: tensor: wmma=" << total.warp_by_class[static_cast<size_t>(vxsim::OpClass::kTensor)]
        << ", uops=" << total.tensor_uops << ", flops=" << total.tensor_flops << ", int ops=" << total.tensor_int_ops
        << ", issue share=" << static_cast<int>(total.tensor_issue_share() * 1000.0 + 0.5) / 10.0
        << "%, thread-instrs with one per WMMA=" << total.thread_instructions << "\n";
  }
  out << "PERF: instrs=" << total.simx_thread_instructions(threads) << ", cycles=n/a, IPC=n/a\n";
}

// Hands every executed instruction to each of several consumers (the simulator takes one).
class ConsumerFanOut : public vxsim::InstructionConsumer {
 public:
  void add(vxsim::InstructionConsumer* c) { consumers_.push_back(c); }
  bool empty() const { return consumers_.empty(); }
  void on_instruction(const vxsim::ExecutedInstruction& r) override {
    for (auto* c : consumers_) c->on_instruction(r);
  }
  // A timing model among them paces the run; the others follow.
  uint64_t wants(uint32_t core, uint32_t warp) override {
    uint64_t n = UINT64_MAX;
    for (auto* c : consumers_) n = std::min(n, c->wants(core, warp));
    return n;
  }
  bool on_round_end() override {
    bool progress = false;
    for (auto* c : consumers_) progress = c->on_round_end() || progress;
    return progress;
  }
  void on_run_begin(const vxsim::Config& config) override {
    for (auto* c : consumers_) c->on_run_begin(config);
  }
  void on_run_end(bool completed) override {
    for (auto* c : consumers_) c->on_run_end(completed);
  }

 private:
  std::vector<vxsim::InstructionConsumer*> consumers_;
};

// The ELF with the kernel's line table: the kernel itself, or the .elf `sim cc` left beside
// a .vxbin. Empty when there is none.
std::string line_info_elf(const std::string& kernel) {
  if (fs::path(kernel).extension() != ".vxbin") return kernel;
  const fs::path elf = fs::path(kernel).replace_extension(".elf");
  return fs::is_regular_file(elf) ? elf.string() : "";
}

struct PcRow {
  vxsim::PcProfile::Entry entry;
  std::string instruction, source;
};

// The hottest PCs, with their disassembly and source line (when the ELF has a line table).
std::vector<PcRow> pc_rows(const vxsim::PcProfile& profile, size_t top, const vxsim::LineTable* lines) {
  std::vector<PcRow> rows;
  for (const auto& e : profile.hottest(top))
    rows.push_back({e, vxsim::Simulator::disassemble(e.word, e.pc), lines ? lines->lookup(e.pc) : ""});
  return rows;
}

void print_pc_profile(const std::vector<PcRow>& rows, size_t pcs, uint64_t total, bool have_lines, std::ostream& out) {
  out << "PC profile: the " << rows.size() << " hottest of " << pcs << " PCs by thread-instructions (" << total
      << " in all)" << (have_lines ? "" : "; no line table (compile with `vxsynth sim cc` and keep the .elf)") << "\n";
  char line[160];
  std::snprintf(line, sizeof line, "  %4s  %8s  %14s  %6s  %12s  %-32s %s\n", "rank", "pc", "thread-instrs", "share",
                "warp-instrs", "instruction", "source");
  out << line;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double share = total ? 100.0 * static_cast<double>(r.entry.thread_instructions) / static_cast<double>(total) : 0;
    std::snprintf(line, sizeof line, "  %4zu  %08x  %14" PRIu64 "  %5.1f%%  %12" PRIu64 "  %-32s %s\n", i + 1,
                  r.entry.pc, r.entry.thread_instructions, share, r.entry.warp_instructions, r.instruction.c_str(),
                  r.source.empty() ? "-" : r.source.c_str());
    out << line;
  }
}

int run_kernel(const RunOptions& o) {
  if (o.kernel.empty()) throw InputError("sim run", "KERNEL", "missing: give a kernel .vxbin or .elf");
  if (!fs::is_regular_file(o.kernel)) throw InputError(o.kernel, "", "kernel file not found");
  vxsim::Config config = vxsim::host::device_config_from_environment();
  if (o.cores) config.cores = *o.cores;
  if (o.warps) config.warps = *o.warps;
  if (o.threads) config.threads = *o.threads;
  if (o.local_mem) config.local_mem_bytes = *o.local_mem;
  if (o.max_instrs) config.max_instructions = *o.max_instrs;
  config.validate("sim run options (--cores/--warps/--threads/--local-mem)");

  vxsim::Simulator sim(config);
  std::unique_ptr<vxsim::timing::Vortex2Model> timing;
  const std::string model = o.timing.empty() ? (o.signature.empty() ? "none" : "vortex2") : o.timing;
  if (!o.signature.empty() && model != "vortex2") {
    throw InputError("sim run", "--signature", "the Vortex-side signature needs --timing vortex2");
  }
  if (model == "vortex2") {
    vxsim::timing::TimingParams params;
    if (!o.timing_config.empty()) params.load_file(o.timing_config);
    for (const auto& a : o.timing_params) params.set_assignment(a);
    vxsim::timing::TimingParams check = params;
    check.resolve(config);  // report a bad parameter before running
    timing = std::make_unique<vxsim::timing::Vortex2Model>(params);
    sim.set_instruction_consumer(timing.get());
  } else if (model != "none") {
    throw InputError("sim run", "--timing", "expected none or vortex2, got '" + o.timing + "'");
  } else if (!o.timing_params.empty() || !o.timing_config.empty()) {
    throw InputError("sim run", "--timing-param", "timing parameters need --timing vortex2");
  }
  sim.load_program(o.kernel);
  // A .vxbin carries no line table; the ELF that `sim cc` leaves beside it does.
  const std::string elf = line_info_elf(o.kernel);
  std::optional<vxsim::LineTable> lines;
  if (!elf.empty()) {
    try {
      if (elf != o.kernel) sim.load_line_info(elf);
      if (o.pc_profile) lines = vxsim::parse_program_file(elf).lines;
    } catch (const std::exception&) {
      // Only a convenience for fault reports and the PC profile.
    }
  }
  ConsumerFanOut consumers;
  std::ofstream trace_file;
  std::optional<vxsim::TraceWriter> trace;
  if (!o.trace.empty()) {
    trace_file.open(o.trace);
    if (!trace_file) throw InputError(o.trace, "--trace", "cannot write the trace file");
    trace.emplace(trace_file, o.trace_limit);
    consumers.add(&*trace);
  }
  vxsim::PcProfile profile;
  if (o.pc_profile) consumers.add(&profile);
  if (!consumers.empty()) {
    if (timing) consumers.add(timing.get());
    sim.set_instruction_consumer(&consumers);
  }
  // With --json, stdout carries only the JSON document.
  std::FILE* console = o.json ? stderr : stdout;
  const bool plain = o.plain_console;
  const uint32_t cores = config.cores;
  sim.set_console_callback([console, plain, cores](const vxsim::ConsoleLine& line) {
    if (plain) {
      std::fprintf(console, "%s\n", line.text.c_str());
    } else {
      std::fprintf(console, "%s: %s\n", vxsim::console_label(line, cores).c_str(), line.text.c_str());
    }
  });

  std::optional<vxsim::FaultReport> fault;
  vxsim::RunResult result;
  try {
    result = sim.run();
  } catch (const vxsim::SimFault& error) {
    fault = error.report();
  }
  std::fflush(console);
  if (trace) {
    trace_file.close();
    const uint64_t written = o.trace_limit == 0 ? trace->seen() : std::min(trace->seen(), o.trace_limit);
    std::cerr << "trace: " << written << " warp instructions written to " << o.trace;
    if (written < trace->seen()) std::cerr << " (stopped at --trace-limit; " << trace->seen() << " ran)";
    std::cerr << "\n";
  }
  // A kernel that read a null argument pointer and then failed was written for a host program.
  const bool failed = fault.has_value() || result.exit_code != 0;
  std::string argument_note;
  if (failed && sim.argument_pointer_read_as_null())
    argument_note =
        "the kernel read its argument pointer (MSCRATCH) and got 0: `sim run` passes no arguments, so this kernel "
        "probably needs a host program that uploads them (vx_upload_bytes, then vx_start; see docs/vortex-kernels.md)";
  const std::vector<PcRow> hot = o.pc_profile ? pc_rows(profile, o.pc_top, lines ? &*lines : nullptr) : std::vector<PcRow>{};
  const size_t pcs = o.pc_profile ? profile.hottest(SIZE_MAX).size() : 0;

  if (o.json || !o.signature.empty()) {
    Json doc;
    doc["schema"] = schema_id("vxsim-run", 1);
    doc["kernel"] = o.kernel;
    doc["config"] = {{"cores", config.cores},
                     {"warps", config.warps},
                     {"threads", config.threads},
                     {"local_mem_size", config.local_mem_bytes},
                     {"max_instructions", config.max_instructions}};
    doc["exit_code"] = fault ? Json(nullptr) : Json(result.exit_code);
    if (fault) {
      doc["fault"] = {{"kind", vxsim::fault_kind_name(fault->kind)},
                      {"message", fault->message},
                      {"pc", fault->pc},
                      {"core", fault->core},
                      {"warp", fault->warp},
                      {"source", fault->source_location},
                      {"report", fault->to_string()}};
    } else {
      doc["fault"] = nullptr;
    }
    if (timing) {
      // Vortex 2.x: thread-instructions, a WMMA counted as its micro-ops (SimX's count).
      doc["instrs"] = timing->summary().total.instrs;
      doc["cycles"] = timing->cycles();
      doc["ipc"] = timing->summary().total.instrs / static_cast<double>(std::max<uint64_t>(1, timing->cycles()));
      doc["note"] = "vortex2 timing model; counters cover the whole run (one launch), regions each vx_spawn_threads call";
      doc["timing"] = vxsim::timing::timing_to_json(timing->summary(), timing->params(), config);
    } else {
      // Vortex 2.x: thread-instructions, a WMMA counted as its micro-ops (SimX's count).
      doc["instrs"] = sim.counters().simx_thread_instructions(config.threads);
      doc["cycles"] = nullptr;                             // no timing model
      doc["ipc"] = nullptr;
      doc["note"] = "functional simulation: cycles and IPC are not modelled (--timing vortex2 models them)";
    }
    doc["counters"] = sim.counters_json();
    // Per vx_spawn_threads call (all cores), and what ran outside them (start-up, .bss clearing).
    const auto spawn_regions = vxsim::region_rows(sim, timing.get());
    doc["regions"] = vxsim::regions_json(spawn_regions, config.threads);
    doc["outside_regions"] = vxsim::counters_json_one(vxsim::outside_regions(sim, spawn_regions), config.threads);
    doc["argument_pointer_null"] = sim.argument_pointer_read_as_null();
    if (!argument_note.empty()) doc["argument_note"] = argument_note;
    if (o.pc_profile) {
      Json rows = Json::array();
      for (const auto& r : hot)
        rows.push_back({{"pc", r.entry.pc},
                        {"thread_instructions", r.entry.thread_instructions},
                        {"warp_instructions", r.entry.warp_instructions},
                        {"instruction", r.instruction},
                        {"source", r.source.empty() ? Json(nullptr) : Json(r.source)}});
      doc["pc_profile"] = {{"pcs", pcs}, {"hottest", rows}};
    }
    if (!o.signature.empty() && !fault) {
      refine::VortexSignatureOptions sopt;
      sopt.clock_mhz = o.clock_mhz;
      signature::SignatureFile file;
      file.source = o.kernel;
      file.kernels.push_back(refine::vortex_signature(doc, o.kernel, sopt));
      write_json_file(o.signature, file.to_json());
      std::cerr << "wrote " << o.signature << " (vxsynth.signature/1, Vortex side, " << o.clock_mhz << " MHz)\n";
    }
    if (o.json) std::cout << dump_json(doc) << "\n";
  }
  if (!o.json) {
    if (fault) std::cerr << fault->to_string() << "\n";
    // A kernel's own non-zero exit is its verdict, passed on as the exit status: say so.
    if (!fault && result.exit_code != 0 && argument_note.empty()) {
      std::cerr << "vxsynth: the kernel exited with code " << result.exit_code << " (sim run's exit status "
                << exit_status_of(result.exit_code) << ")\n";
    }
    if (!argument_note.empty())
      std::cerr << "vxsynth: note: " << argument_note << " (exit code " << (fault ? std::string("n/a, fault")
                                                                                  : std::to_string(result.exit_code))
                << ")\n";
    if (o.perf) print_perf(sim, timing.get(), std::cout);
    if (o.pc_profile) print_pc_profile(hot, pcs, sim.counters().thread_instructions, lines.has_value(), std::cout);
  }
  if (fault) return kExitWorkFailed;
  return exit_status_of(result.exit_code);
}

const CommandRegistrar reg(
    "sim",
    "the embedded Vortex simulator: compile a kernel (sim cc), run a standalone kernel (sim run), check "
    "split/join regions (sim verify), host build flags (sim flags)",
    60,
    [](CLI::App& sub) -> Runner {
      sub.require_subcommand(1);
      sub.footer("See docs/vortex-kernels.md for writing kernels and host programs.");

      auto cc_options = std::make_shared<CcOptions>();
      CLI::App* cc = sub.add_subcommand(
          "cc", "compile kernel sources with clang and the vortex-divergence plugin (or riscv64-unknown-elf-gcc), "
                "picolibc and vortex-rt into OUT.vxbin (OUT.elf, the raw image OUT.bin that SimX's standalone runner "
                "takes, and the disassembly OUT.dump beside it; the output folder is created if missing); the "
                "split/join verifier checks the ELF");
      cc->add_option("SRC", cc_options->build.sources, "kernel sources: .c, .cpp/.cc/.cxx, .S")->required();
      cc->add_option("-o,--output", cc_options->build.output, "output .vxbin")->required();
      // One value per -I/-D, as a compiler takes them (-I DIR, -IDIR, -D NAME, -DNAME=VALUE), so
      // that a source after them is not read as a second value.
      cc->add_option("-I", cc_options->build.include_dirs, "include folder: -I DIR or -IDIR (repeatable)")
          ->allow_extra_args(false);
      cc->add_option("-D", cc_options->build.defines,
                     "preprocessor definition: -D NAME[=VALUE] or -DNAME[=VALUE] (repeatable)")
          ->allow_extra_args(false);
      cc->add_option("-O", cc_options->build.optimization, "optimization level: 0, 1, 2, 3, s, g")
          ->capture_default_str();
      cc->add_option("--runtime", cc_options->build.runtime_dir,
                     "vortex-rt folder (default: $VXSYNTH_VORTEX_RT or the source tree's vortex-rt)");
      cc->add_option("--compiler", cc_options->build.compiler,
                     "kernel compiler: clang (default, or $VXSYNTH_KERNEL_COMPILER; inserts split/join where lanes "
                     "may diverge) or gcc (no divergence handling)");
      cc->add_option("--tool-prefix", cc_options->build.tool_prefix,
                     "cross tool prefix (default: $VXSYNTH_RISCV_PREFIX or riscv64-unknown-elf-)");
      cc->add_option("--cflag", cc_options->build.extra_flags,
                     "extra compiler flag for the kernel sources, as --cflag=-FLAG (repeatable)")
          ->allow_extra_args(false);
      cc->add_flag("-v,--verbose", cc_options->build.verbose, "print each command");
      cc->add_flag("!--no-verify", cc_options->build.verify,
                   "skip the split/join verifier (only to study a broken binary: it may compute wrong answers)");
      cc->footer("Exit codes: 0 built, 1 the compiler or linker failed (its messages are printed), 2 bad usage.");

      auto run_options = std::make_shared<RunOptions>();
      CLI::App* run = sub.add_subcommand(
          "run", "run a standalone kernel (no host arguments; MSCRATCH = 0) and exit with its exit code");
      run->add_option("KERNEL", run_options->kernel, "kernel .vxbin or .elf")->required();
      run->add_option("--cores", run_options->cores, "cores (default 1, or $VXSIM_CORES)");
      run->add_option("--warps", run_options->warps, "warps per core, power of two (default 4, or $VXSIM_WARPS)");
      run->add_option("--threads", run_options->threads,
                      "threads per warp, power of two (default 4, or $VXSIM_THREADS)");
      run->add_option("--local-mem", run_options->local_mem,
                      "local memory bytes per core, power of two (default 16384, or $VXSIM_LOCAL_MEM)");
      run->add_option("--max-instrs", run_options->max_instrs,
                      "stop with a fault after this many warp-instructions (0 = no limit)");
      run->add_flag("--perf", run_options->perf,
                    "end with Vortex's summary line PERF: instrs=N, cycles=..., IPC=... (instrs = thread-instructions)");
      run->add_option("--timing", run_options->timing,
                      "timing model: none (functional, fastest) or vortex2 (cycles as Vortex 2.x SimX: pipeline, "
                      "caches, memory; see docs/vxsim-timing.md)")
          ->capture_default_str();
      run->add_option("--signature", run_options->signature,
                      "write the Vortex-side signature (vxsynth.signature/1, the ten metrics from the timing "
                      "counters) to FILE; implies --timing vortex2");
      run->add_option("--clock-mhz", run_options->clock_mhz,
                      "core clock for the signature's DRAM bandwidth and duration (default 200)")
          ->capture_default_str();
      run->add_option("--timing-param", run_options->timing_params,
                      "override one timing parameter NAME=VALUE (repeatable), e.g. mem_latency=120");
      run->add_option("--timing-config", run_options->timing_config,
                      "file of timing parameters, one NAME = VALUE a line ('#' comments)");
      run->add_flag("--json", run_options->json,
                    "print {\"schema\": \"vxsynth.vxsim-run/1\", exit code, fault, counters} on stdout (console "
                    "lines go to stderr)");
      run->add_flag("--plain-console", run_options->plain_console,
                    "print console lines without Vortex's \"#slot: \" prefix (\"#core.slot: \" with several cores)");
      run->add_option("--trace", run_options->trace,
                      "write one line per executed warp instruction to FILE: core, warp, pc, thread mask, "
                      "disassembly, per-lane addresses of memory instructions");
      run->add_option("--trace-limit", run_options->trace_limit,
                      "stop writing the trace after this many lines (0 = no limit)")
          ->capture_default_str();
      run->add_flag("--pc-profile", run_options->pc_profile,
                    "after the run, print the hottest PCs by thread-instructions with their instruction and source "
                    "line (from the ELF, or the .elf beside a .vxbin)");
      run->add_option("--pc-top", run_options->pc_top, "how many PCs --pc-profile lists")->capture_default_str();
      run->footer(
          "Exit codes: the kernel's exit code (its low byte; a non-zero code never maps to 0), 1 on a fault (the "
          "report names the pc, warp, lanes and source line), 2 bad usage or a malformed kernel file.");

      auto verify_path = std::make_shared<std::string>();
      CLI::App* verify = sub.add_subcommand(
          "verify", "check that every SPLIT of a kernel ELF reaches exactly one JOIN on every path (sim cc runs this "
                    "on every build)");
      verify->add_option("KERNEL", *verify_path, "kernel .elf (symbols and line table name the function and line)")
          ->required();
      verify->footer("Exit codes: 0 every region well formed, 1 a broken region (each printed with function and "
                     "source line), 2 bad usage or a malformed file.");

      auto flags_options = std::make_shared<FlagsOptions>();
      CLI::App* flags = sub.add_subcommand(
          "flags", "print the flags that build a host program against vortex.h and libvortex (like llvm-config): "
                   "g++ main.cpp $(vxsynth sim flags --cflags --libs)");
      flags->add_flag("--cflags", flags_options->cflags, "include folders of vortex.h, VX_config.h, VX_types.h");
      flags->add_flag("--libs", flags_options->libs, "libvortex.a (simulator + host API) and what it needs");
      flags->add_flag("--prefix", flags_options->prefix, "the install prefix (or the build folder)");
      flags->footer(
          "Paths are the install prefix's when this vxsynth is installed (cmake --install), else the source and "
          "build folders'. The same flags: pkg-config vxsynth-vortex, CMake find_package(vxsynth) -> "
          "vxsynth::vortex.");

      return [cc, cc_options, run, run_options, verify, verify_path, flags, flags_options]() -> int {
        if (verify->parsed()) return run_verify(*verify_path);
        if (cc->parsed()) return run_cc(*cc_options);
        if (run->parsed()) return run_kernel(*run_options);
        if (flags->parsed()) return run_flags(*flags_options);
        return kExitBadInput;
      };
    });

}  // namespace
}  // namespace vxsynth::cli
