// vxsynth ref: generates the seeded inputs of an op and its CPU reference output
// (docs/ops.md). Writes DIR/<input>.tensor, DIR/y_ref.tensor (CUDA path), DIR/y_ref_vortex.tensor
// when the Vortex path differs, DIR/y_poison.tensor (an output buffer to start a run from) and
// DIR/ref.json (what was written, the tolerances).
#include <chrono>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "common/error.h"
#include "common/json_io.h"
#include "ops/equivalence.h"
#include "ops/inputs.h"
#include "ops/op_spec.h"
#include "ops/reference.h"
#include "ops/tensor_file.h"

namespace vxsynth::cli {
namespace {

struct RefOptions {
  std::string op, out;
  std::uint64_t seed = 0;
  int threads = 0;
};

const CommandRegistrar reg(
    "ref", "write an op's seeded inputs and its CPU reference output as tensor files", 31,
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<RefOptions>();
      sub.add_option("--op", o->op, "op spec (vxsynth.op/1 JSON)")->required();
      sub.add_option("--seed", o->seed, "seed of the input generators")->required();
      sub.add_option("--out", o->out, "output directory (created)")->required();
      sub.add_option("--threads", o->threads, "reference threads (default: all cores)");
      return [o] {
        namespace fs = std::filesystem;
        const ops::OpSpec spec = ops::read_op_spec(o->op);
        std::error_code ec;
        fs::create_directories(o->out, ec);
        if (ec || !fs::is_directory(o->out)) throw InputError(o->out, "--out", "cannot create directory: " + ec.message());
        const fs::path dir(o->out);

        Json manifest;
        manifest["schema"] = schema_id("ref", 1);
        manifest["op"] = ops::op_spec_to_json(spec);
        manifest["seed"] = o->seed;
        const auto inputs = ops::generate_inputs(spec, o->seed);
        Json files = Json::array();
        for (const auto& t : inputs) {
          const std::string name = t.name() + ".tensor";
          ops::write_tensor_file((dir / name).string(), t);
          files.push_back({{"role", "input"}, {"name", t.name()}, {"file", name}});
        }
        auto run = [&](ops::Side side, const std::string& file) {
          const auto t0 = std::chrono::steady_clock::now();
          ops::Tensor y = ops::compute_reference(spec, inputs, {side, o->threads});
          const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          y.set_seed(o->seed);
          ops::write_tensor_file((dir / file).string(), y);
          files.push_back({{"role", side == ops::Side::cuda ? "reference" : "reference_vortex"},
                           {"name", "y"}, {"file", file}, {"seconds", s}});
          std::cout << "wrote " << (dir / file).string() << " (" << ops::shape_to_string(y.shape()) << " "
                    << ops::to_string(y.dtype()) << ", " << s << " s)\n";
        };
        run(ops::Side::cuda, "y_ref.tensor");
        if (spec.vortex_precision != spec.precision) run(ops::Side::vortex, "y_ref_vortex.tensor");
        ops::Tensor poison = ops::make_poisoned_output(spec);
        ops::write_tensor_file((dir / "y_poison.tensor").string(), poison);
        files.push_back({{"role", "poisoned_output"}, {"name", "y"}, {"file", "y_poison.tensor"}});
        manifest["files"] = files;
        for (ops::Check c : {ops::Check::source, ops::Check::candidate}) {
          const ops::Tolerance t = ops::tolerance_for(spec, c);
          manifest["tolerance"][ops::to_string(c)] = {{"atol", t.atol}, {"rtol", t.rtol}, {"exact", t.exact}};
        }
        write_json_file((dir / "ref.json").string(), manifest);
        std::cout << "wrote " << inputs.size() << " inputs and ref.json to " << o->out << "\n";
        return kExitOk;
      };
    });

}  // namespace
}  // namespace vxsynth::cli
