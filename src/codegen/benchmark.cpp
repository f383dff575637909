#include "codegen/benchmark.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/emit.h"
#include "common/error.h"
#include "ops/inputs.h"
#include "ops/reference.h"
#include "ops/tensor_file.h"

namespace vxsynth::codegen {

namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw WorkError("cannot write " + path.string());
}

}  // namespace

BenchmarkFiles write_benchmark(const design::DesignPoint& d, const std::string& dir, const BenchmarkOptions& options) {
  BenchmarkFiles files;
  files.dir = dir;
  files.design_json = (fs::path(dir) / "design.json").string();
  files.cuda_source = (fs::path(dir) / "cuda" / "candidate.cu").string();
  files.vortex_dir = (fs::path(dir) / "vortex").string();
  files.tolerance = ops::tolerance_for(d.op, ops::Check::candidate);

  const std::string cuda = emit_cuda(d);  // validates the design first
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw WorkError("cannot create " + dir + ": " + ec.message());
  design::write_design(files.design_json, d);
  write_text(files.cuda_source, cuda);

  VortexCheck check{files.tolerance.atol, files.tolerance.rtol, options.seed};
  for (const auto& f : emit_vortex(d, check)) {
    const fs::path path = fs::path(files.vortex_dir) / f.name;
    write_text(path, f.text);
  }
  if (options.write_data) {
    const fs::path data = fs::path(files.vortex_dir) / "data";
    fs::create_directories(data, ec);
    const auto inputs = ops::generate_inputs(d.op, options.seed);
    for (const auto& t : inputs) ops::write_tensor_file((data / (t.name() + ".vxt")).string(), t);
    ops::ReferenceOptions ref;
    ref.side = ops::Side::vortex;
    ops::write_tensor_file((data / "expected.vxt").string(), ops::compute_reference(d.op, inputs, ref));
  }
  return files;
}

}  // namespace vxsynth::codegen
