// vxsynth check: compares two output tensors of an op under the op's tolerance
// (docs/tolerances.md) and prints the report. Exit 0 pass, 1 fail, 2 bad input.
#include <iostream>

#include "cli/command.h"
#include "common/error.h"
#include "common/json_io.h"
#include "ops/equivalence.h"
#include "ops/op_spec.h"
#include "ops/tensor_file.h"

namespace vxsynth::cli {
namespace {

struct CheckOptions {
  std::string op, expected, actual, check = "source", json_out;
  double atol = -1.0, rtol = -1.0;
};

const CommandRegistrar reg(
    "check", "compare two output tensors of an op under its tolerance (exit 0 pass, 1 fail)", 30,
    [](CLI::App& sub) -> Runner {
      auto o = std::make_shared<CheckOptions>();
      sub.add_option("--op", o->op, "op spec (vxsynth.op/1 JSON)")->required();
      sub.add_option("--expected", o->expected, "expected output tensor file (e.g. the vendor's)")->required();
      sub.add_option("--actual", o->actual, "actual output tensor file (e.g. the candidate's)")->required();
      sub.add_option("--check", o->check,
                     "source: candidate vs vendor operator; candidate: CUDA candidate vs Vortex candidate")
          ->check(CLI::IsMember({"source", "candidate"}))
          ->capture_default_str();
      sub.add_option("--json", o->json_out, "also write the report as JSON (vxsynth.check/1) to this file");
      sub.add_option("--atol", o->atol, "override the table's atol (for experiments; reported)");
      sub.add_option("--rtol", o->rtol, "override the table's rtol (for experiments; reported)");
      return [o] {
        const ops::OpSpec spec = ops::read_op_spec(o->op);
        ops::Check check;
        ops::parse_check(o->check, check);
        ops::Tensor expected = ops::read_tensor_file(o->expected);
        ops::Tensor actual = ops::read_tensor_file(o->actual);
        const ops::TensorDesc out = spec.output();
        for (const auto* t : {&expected, &actual}) {
          const std::string& file = t == &expected ? o->expected : o->actual;
          if (t->dtype() != out.dtype) {
            throw InputError(file, "dtype", ops::to_string(t->dtype()) + ", but the op's output is " +
                                                ops::to_string(out.dtype));
          }
          if (t->shape() != out.shape) {
            throw InputError(file, "shape", ops::shape_to_string(t->shape()) + ", but the op's output is " +
                                                ops::shape_to_string(out.shape));
          }
        }
        expected.set_name(o->expected);
        actual.set_name(o->actual);
        ops::Tolerance tol = ops::tolerance_for(spec, check);
        if ((o->atol >= 0 || o->rtol >= 0) && tol.exact) {
          throw InputError(o->op, "--atol/--rtol",
                           "a " + ops::to_string(spec.kind) + " is checked bit for bit: there is no tolerance to override");
        }
        if (o->atol >= 0) tol.atol = o->atol;
        if (o->rtol >= 0) tol.rtol = o->rtol;
        const ops::EquivalenceReport r = ops::compare_outputs(expected, actual, tol, check);
        std::cout << "op " << (spec.name.empty() ? o->op : spec.name) << " (" << ops::to_string(spec.kind) << ", "
                  << ops::to_string(spec.precision);
        if (check == ops::Check::candidate) std::cout << " vs vortex " << ops::to_string(spec.vortex_precision);
        if (spec.kind == ops::OpKind::layout_transform) {
          const int nd = static_cast<int>(spec.transform.spatial.size());
          std::cout << ", " << spec.transform.tensor << " " << ops::layout_name(spec.transform.from, nd) << " -> "
                    << ops::layout_name(spec.transform.to, nd) << ")\n" << r.text();
        } else {
          std::cout << ", K = " << spec.reduction_length() << ")\n" << r.text();
        }
        if (!o->json_out.empty()) write_json_file(o->json_out, r.to_json());
        return r.passed() ? kExitOk : kExitWorkFailed;
      };
    });

}  // namespace
}  // namespace vxsynth::cli
