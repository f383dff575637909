// vxsynth gen: one design point -> a CUDA candidate and a Vortex benchmark
// (docs/design-space.md).
//   gen --design D.json --out DIR [--run-sim [--timing vortex2]]
//   gen --reference suite/.../reference.json --out DIR [--run-sim]       (the reference's seed)
//   gen --op linear --shape M=37,N=53,K=71 --dtype fp32 --engine simt --block 128 --out DIR
//   gen ... --set split_k=4 --set boundary=padded                         (edit axes of the design)
//   gen ... --list-neighbours                                             (single-axis neighbours)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "cli/command.h"
#include "codegen/benchmark.h"
#include "common/error.h"
#include "common/json_io.h"
#include "design/hopper_family.h"
#include "design/move.h"
#include "design/neighbours.h"
#include "design/seed.h"
#include "design/validity.h"
#include "refine/sim_run.h"

namespace vxsynth::cli {
namespace {

struct GenOptions {
  std::string design, reference, op, shape, dtype = "fp32", engine = "simt", activation = "none", layout = "nchw";
  std::string family = "gemm";
  std::string tensor = "activation";
  std::string name, out;
  std::vector<std::string> set, move;
  int block = 128;
  bool bias = false, run_sim = false, list_neighbours = false, verbose = false, served_op = false, no_data = false;
  std::string timing = "none";  // with --run-sim: none | vortex2
  std::uint64_t seed = 1;
};

// The timed run's summary from its vxsynth.vxsim-run/1 document: cycles, IPC and each
// vx_spawn_threads region's share (the kernel's phases: padding, the GEMM, a reduction ...).
void print_timed_run(const Json& run, const std::string& file) {
  const double cycles = run.value("cycles", 0.0);
  std::cout << "timing vortex2: " << static_cast<std::uint64_t>(cycles) << " cycles, IPC " << run.value("ipc", 0.0) << "\n";
  double in_regions = 0;
  if (run.contains("regions") && run["regions"].is_array()) {
    for (const auto& r : run["regions"]) {
      const double c = r["cycles"].is_number() ? r["cycles"].get<double>() : 0.0;
      in_regions += c;
      std::printf("  region %d: %.0f cycles (%.1f%%), IPC %.3f\n", r.value("index", 0), c, cycles > 0 ? 100.0 * c / cycles : 0.0,
                  r["ipc"].is_number() ? r["ipc"].get<double>() : 0.0);
    }
    const double outside = std::max(0.0, cycles - in_regions);
    std::printf("  outside the regions (start-up, serial code): %.0f cycles (%.1f%%)\n", outside,
                cycles > 0 ? 100.0 * outside / cycles : 0.0);
  }
  std::fflush(stdout);
  std::cout << "every counter (timing, per core, per region): " << file << "\n";
}

std::map<std::string, std::int64_t> parse_shape(const std::string& text) {
  std::map<std::string, std::int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--shape", item, "expected KEY=VALUE (e.g. M=37,N=53,K=71)");
    try {
      std::size_t used = 0;
      const long long v = std::stoll(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1) throw std::invalid_argument("trailing");
      out[item.substr(0, eq)] = v;
    } catch (const std::exception&) {
      throw InputError("--shape", item.substr(0, eq), "not an integer: \"" + item.substr(eq + 1) + "\"");
    }
  }
  return out;
}

std::int64_t take(std::map<std::string, std::int64_t>& m, const std::string& key, std::int64_t fallback,
                  bool required) {
  const auto it = m.find(key);
  if (it == m.end()) {
    if (required) throw InputError("--shape", key, "missing");
    return fallback;
  }
  const auto v = it->second;
  m.erase(it);
  return v;
}

ops::OpSpec op_from_options(const GenOptions& o) {
  ops::PrecisionPath precision{};
  if (!ops::parse_precision_path(o.dtype, precision)) throw InputError("--dtype", "", "expected fp32, tf32, bf16 or fp16");
  ops::Activation act{};
  if (!ops::parse_activation(o.activation, act)) throw InputError("--activation", "", "expected none, relu, gelu, gelu_tanh or silu");
  auto shape = parse_shape(o.shape);
  const std::string name = o.name.empty() ? o.op : o.name;
  ops::OpSpec spec;
  if (o.op == "linear") {
    spec = ops::make_linear(name, precision, take(shape, "M", 0, true), take(shape, "N", 0, true), take(shape, "K", 0, true),
                            o.bias, act);
  } else if (o.op == "matmul") {
    if (o.bias || act != ops::Activation::none) throw InputError("--op", "matmul", "a matmul has no bias or activation");
    const std::int64_t batch = take(shape, "B", 0, false);
    const ops::Shape b = batch > 0 ? ops::Shape{batch} : ops::Shape{};
    const std::int64_t m = take(shape, "M", 0, true), n = take(shape, "N", 0, true), k = take(shape, "K", 0, true);
    const bool ta = take(shape, "ta", 0, false) != 0, tb = take(shape, "tb", 0, false) != 0;
    const bool broadcast_b = take(shape, "broadcast_b", 0, false) != 0;
    spec = ops::make_matmul(name, precision, b, broadcast_b && batch > 0 ? ops::Shape{1} : b, m, n, k, ta, tb);
  } else if (o.op == "conv1d" || o.op == "conv2d") {
    const bool two = o.op == "conv2d";
    const std::int64_t n = take(shape, "N", 1, false), c = take(shape, "C", 0, true), kout = take(shape, "K", 0, true);
    std::vector<std::int64_t> in, kernel;
    if (two) {
      in = {take(shape, "H", 0, true), take(shape, "W", 0, true)};
      kernel = {take(shape, "R", 0, true), take(shape, "S", 0, true)};
    } else {
      in = {take(shape, "L", 0, true)};
      kernel = {take(shape, "R", 0, true)};
    }
    const std::int64_t stride = take(shape, "stride", 1, false), pad = take(shape, "pad", 0, false);
    const std::int64_t dil = take(shape, "dilation", 1, false), groups = take(shape, "groups", 1, false);
    const std::size_t dims = two ? 2 : 1;
    ops::ConvLayout layout = ops::ConvLayout::channels_first;
    if (o.layout == "nhwc" || o.layout == "nlc") layout = ops::ConvLayout::channels_last;
    else if (o.layout != "nchw" && o.layout != "ncl") throw InputError("--layout", "", "expected nchw/ncl or nhwc/nlc");
    spec = ops::make_conv(name, precision, n, c, kout, in, kernel, std::vector<std::int64_t>(dims, stride),
                          std::vector<std::int64_t>(dims, pad), std::vector<std::int64_t>(dims, dil), groups, o.bias,
                          layout, act);
  } else if (o.op == "layout_transform") {
    // A re-layout of one tensor: --layout names the input's layout, the output has the other.
    if (o.bias || act != ops::Activation::none) throw InputError("--op", "layout_transform", "a transform has no bias or activation");
    const std::int64_t n = take(shape, "N", 1, false), c = take(shape, "C", 0, true);
    std::vector<std::int64_t> spatial;
    if (shape.count("L")) {
      spatial = {take(shape, "L", 0, true)};
    } else {
      spatial = {take(shape, "H", 0, true), take(shape, "W", 0, true)};
    }
    ops::ConvLayout from = ops::ConvLayout::channels_first;
    if (o.layout == "nhwc" || o.layout == "nlc") from = ops::ConvLayout::channels_last;
    else if (o.layout != "nchw" && o.layout != "ncl") throw InputError("--layout", "", "expected nchw/ncl or nhwc/nlc (the input's)");
    const ops::ConvLayout to = from == ops::ConvLayout::channels_first ? ops::ConvLayout::channels_last : ops::ConvLayout::channels_first;
    spec = ops::make_transform(name, precision, n, c, spatial, from, to, o.tensor);
  } else {
    throw InputError("--op", "", "expected linear, matmul, conv1d, conv2d or layout_transform");
  }
  if (!shape.empty()) throw InputError("--shape", shape.begin()->first, "unknown key for " + o.op);
  return spec;
}

int run_gen(const GenOptions& o) {
  const int sources = !o.design.empty() + !o.reference.empty() + !o.op.empty();
  if (sources != 1) throw InputError("gen", "", "give exactly one of --design, --reference or --op");
  if (o.served_op && o.reference.empty()) throw InputError("--served-op", "", "goes with --reference");
  design::DesignPoint d;
  if (!o.design.empty()) {
    d = design::read_design(o.design);
  } else if (!o.reference.empty()) {
    d = design::seed_from_reference(o.reference, o.served_op);
  } else {
    if (o.shape.empty()) throw InputError("--shape", "", "required with --op");
    design::EngineClass engine{};
    if (!design::parse(o.engine, engine)) throw InputError("--engine", "", "expected simt or tensor");
    if (o.family == "hopper") {
      if (engine != design::EngineClass::kTensorCore) throw InputError("--family", "hopper", "goes with --engine tensor");
      std::string why;
      auto h = design::seed_hopper(op_from_options(o), o.block, "", "", {}, &why);
      if (!h) throw InputError("--family", "hopper", "the Hopper family cannot implement this op at block " + std::to_string(o.block) + ": " + why);
      d = *h;
    } else if (o.family != "gemm") {
      throw InputError("--family", o.family, "expected gemm or hopper");
    } else {
      d = design::seed_design(op_from_options(o), engine, o.block, "", "command line");
    }
  }
  if (!o.set.empty()) d = design::apply_settings(d, o.set, "--set");
  if (!o.move.empty()) {
    // AXIS:DIRECTION, the steps a revision record lists (its "moves"), applied together: this
    // rebuilds any revision's design from its parent's.
    std::vector<design::Move> moves;
    for (const auto& item : o.move) {
      const auto colon = item.find(':');
      design::Move m;
      if (colon == std::string::npos || !design::parse(item.substr(0, colon), m.axis)) {
        throw InputError("--move", item, "expected AXIS:DIRECTION with an axis of docs/design-space.md, e.g. tile:n:up, split_k:up, boundary:to:padded");
      }
      m.direction = item.substr(colon + 1);
      moves.push_back(m);
    }
    d = design::apply(d, moves, "--move");
  }
  if (o.list_neighbours) {
    for (const auto& n : design::neighbours(d)) {
      std::cout << design::to_string(n.move.axis) << "\t" << n.move.direction
                << (n.move.coupled ? "\t(" + design::to_string(*n.move.coupled) + " follows)" : "") << "\t"
                << design::procedural_name(n.design) << "\n";
    }
    return kExitOk;
  }
  if (o.out.empty()) throw InputError("--out", "", "required (the folder to write the benchmark to)");
  codegen::BenchmarkOptions options;
  options.seed = o.seed;
  if (o.no_data) {
    if (o.run_sim) throw InputError("--no-data", "", "--run-sim needs vortex/data");
    options.write_data = false;
  }
  const codegen::BenchmarkFiles files = codegen::write_benchmark(d, o.out, options);
  std::cout << "design " << design::procedural_name(d) << "\n";
  for (const auto& p : d.from_kernel_name)
    std::cout << "from the kernel name: " << p.key << "=" << p.value << (p.used ? " (used)" : " (not used)") << ": "
              << p.note << "\n";
  std::cout << "wrote " << files.design_json << "\nwrote " << files.cuda_source << "\n";
  std::cout << "wrote " << files.vortex_dir << "/ (common.h kernel.cpp vx_branchless.h bench.h main.cpp CMakeLists.txt Makefile data/)\n";
  if (!o.run_sim) return kExitOk;
  refine::SimRunOptions sim;
  sim.verbose = o.verbose;
  if (o.timing == "vortex2") {
    sim.timing = true;
    sim.run_json = (std::filesystem::path(files.vortex_dir) / "build" / "vxsim-run.json").string();
  }
  const refine::SimRunResult r = refine::run_on_simulator(d, files, sim);
  std::cout << r.output;
  if (!r.output.empty() && r.output.back() != '\n') std::cout << "\n";
  std::cout << "host check (ops::compare_outputs, candidate tolerance):\n" << r.check_text << "\n";
  std::cout << "built in " << r.build_seconds << " s, simulated in " << r.run_seconds << " s\n";
  if (!r.kernel_warnings.empty() && !o.verbose) {
    std::cout << "(the kernel compiler warned: " << std::count(r.kernel_warnings.begin(), r.kernel_warnings.end(), '\n')
              << " lines; --verbose shows them)\n";
  }
  if (sim.timing && std::filesystem::is_regular_file(sim.run_json)) print_timed_run(read_json_file(sim.run_json), sim.run_json);
  std::cout << (r.passed ? "run-sim: PASSED" : "run-sim: FAILED") << "\n";
  return r.passed ? kExitOk : kExitWorkFailed;
}

const CommandRegistrar reg(
    "gen", "generate the CUDA candidate and the Vortex benchmark of a design point (optionally run it)", 45,
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<GenOptions>();
      sub.add_option("--design", o->design, "design point (vxsynth.design/1 JSON)");
      sub.add_option("--reference", o->reference, "reference.json: generate its seed design");
      sub.add_flag("--served-op", o->served_op,
                   "with --reference of a layout_transform kernel: seed the op it serves (the conv) instead");
      sub.add_option("--op", o->op, "seed from op parameters: linear | matmul | conv1d | conv2d | layout_transform");
      sub.add_option("--shape", o->shape,
                     "with --op, KEY=VALUE list: linear M,N,K; matmul [B,]M,N,K[,ta,tb,broadcast_b]; conv1d "
                     "[N,]C,L,K,R[,stride,pad,dilation,groups]; conv2d [N,]C,H,W,K,R,S[,...]; layout_transform "
                     "[N,]C,L or [N,]C,H,W");
      sub.add_option("--dtype", o->dtype, "precision path: fp32 | tf32 | bf16 | fp16")->capture_default_str();
      sub.add_option("--engine", o->engine, "engine class: simt | tensor")->capture_default_str();
      sub.add_option("--family", o->family,
                     "with --op: gemm (the GEMM family) | hopper (TMA + wgmma, --engine tensor, block 256/384/512; docs/design-space.md)")
          ->capture_default_str();
      sub.add_option("--block", o->block, "threads per block (multiple of 32)")->capture_default_str();
      sub.add_flag("--bias", o->bias, "linear/conv with a bias");
      sub.add_option("--activation", o->activation, "fused activation: none | relu | gelu | gelu_tanh | silu")
          ->capture_default_str();
      sub.add_option("--layout", o->layout, "conv layout, or a transform's input layout: nchw (ncl) | nhwc (nlc)")
          ->capture_default_str();
      sub.add_option("--tensor", o->tensor, "layout_transform: activation | weight (which tensor of the conv)")
          ->capture_default_str();
      sub.add_option("--name", o->name, "op name (free text)");
      sub.add_option("--set", o->set, "change an axis of the design: AXIS=VALUE (repeatable), e.g. split_k=4, "
                                      "boundary=padded, tile=64x64x16, lane_a=reversed");
      sub.add_option("--move", o->move, "step an axis of the design as a revision record's moves do: AXIS:DIRECTION (repeatable), "
                                        "e.g. tile:n:up, warps:n:up,m:down, boundary:to:padded");
      sub.add_option("--out", o->out, "output folder (design.json, cuda/, vortex/)");
      sub.add_option("--seed", o->seed, "input seed of vortex/data")->capture_default_str();
      sub.add_flag("--no-data", o->no_data,
                   "write the design and the sources without vortex/data (the CPU reference of a large op takes minutes)");
      sub.add_flag("--run-sim", o->run_sim, "build the Vortex side, run it on the embedded simulator, check it");
      sub.add_option("--timing", o->timing,
                     "with --run-sim: none (functional) or vortex2 (cycles, IPC, per-region cycles; every counter in "
                     "OUT/vortex/build/vxsim-run.json)")
          ->check(CLI::IsMember({"none", "vortex2"}))
          ->capture_default_str();
      sub.add_flag("--list-neighbours", o->list_neighbours, "print the single-axis neighbours instead of generating");
      sub.add_flag("-v,--verbose", o->verbose, "print the build commands");
      return [o] { return run_gen(*o); };
    });

}  // namespace
}  // namespace vxsynth::cli
