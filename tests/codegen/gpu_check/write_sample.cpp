// Writes the GPU check's sample (README.md): for every family and precision path the axis
// coverage of the SIMT seed and (tf32/bf16/fp16) of the tensor-core seed on the odd test shapes,
// the layout-transform family's axis coverage, plus the suite seeds at their real shapes (a
// layout-transform reference gives its transform and the conv it serves), as
// <out>/designs/<i>/{candidate.cu,design.json}.
//   codegen_gpu_sample OUT SUITE_DIR
// With a third argument `split_reduce`, only the split_reduce serial and serial_vector4 samples
// (design_samples.h), each design followed by its separate twin and naming it in <i>/twin:
// check.py then asks for the serial output to equal the twin's bit for bit (the same sums in the
// same order) over repeated launches. With `multicast`, the multicast sample the same way, each
// design beside its twin without multicast.
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include "codegen/emit.h"
#include "design/sample.h"
#include "design/seed.h"
#include "../design_samples.h"
using namespace vxsynth;
using design::DesignPoint; using design::EngineClass; using ops::PrecisionPath;
ops::OpSpec family_op(const std::string& family, PrecisionPath p) {
  if (family == "linear") return ops::make_linear("linear", p, 37, 53, 71, true, ops::Activation::gelu);
  if (family == "matmul") return ops::make_matmul("matmul", p, {3}, {1}, 29, 45, 67, false, true);
  if (family == "conv1d") return ops::make_conv("conv1d", p, 2, 12, 20, {19}, {5}, {1}, {2}, {1}, 1, true, ops::ConvLayout::channels_first, ops::Activation::relu);
  return ops::make_conv("conv2d", p, 1, 6, 10, {9, 11}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 2, true, ops::ConvLayout::channels_last, ops::Activation::silu);
}
int main(int argc, char** argv) {
  const std::string mode = argc == 4 ? argv[3] : "";
  if (argc != 3 && !(argc == 4 && (mode == "split_reduce" || mode == "multicast"))) {
    std::cerr << "usage: codegen_gpu_sample OUT SUITE_DIR [split_reduce|multicast]\n";
    return 2;
  }
  std::filesystem::path out = std::filesystem::path(argv[1]) / "designs";
  // Each design at <i>, its twin at <i + 1>, named in <i>/twin: check.py asks for equal bits.
  auto write_twins = [&out](const std::vector<DesignPoint>& designs, const std::function<void(DesignPoint&)>& make_twin) {
    int i = 0;
    for (const auto& first : designs) {
      DesignPoint twin = first;
      make_twin(twin);
      for (const DesignPoint* d : {&first, static_cast<const DesignPoint*>(&twin)}) {
        auto dir = out / std::to_string(i++);
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "candidate.cu") << codegen::emit_cuda(*d);
        design::write_design((dir / "design.json").string(), *d);
        if (d == &first) std::ofstream(dir / "twin") << i << "\n";
      }
    }
    return i;
  };
  if (mode == "multicast") {
    const int n = write_twins(codegen::multicast_sample(), [](DesignPoint& d) { d.multicast = design::Multicast::kNone; });
    std::cout << n << " designs (multicast and twins without it)\n";
    return 0;
  }
  if (mode == "split_reduce") {
    auto serial_designs = codegen::split_reduce_sample();
    for (const auto& d : codegen::split_reduce_vector4_sample()) serial_designs.push_back(d);
    const int n = write_twins(serial_designs, [](DesignPoint& d) { d.split_reduce = design::SplitReduce::kSeparate; });
    std::cout << n << " designs (split_reduce serial / serial_vector4 and separate twins)\n";
    return 0;
  }
  std::vector<DesignPoint> all;
  for (std::string f : {"linear", "matmul", "conv1d", "conv2d"}) {
    const int block = f == "matmul" ? 64 : (f == "conv2d" ? 256 : 128);
    for (auto p : {PrecisionPath::fp32, PrecisionPath::tf32, PrecisionPath::bf16, PrecisionPath::fp16}) {
      auto seed = design::seed_design(family_op(f, p), EngineClass::kSimt, block);
      for (auto& d : design::axis_coverage(seed)) all.push_back(d);
      if (p != PrecisionPath::fp32) {
        auto t = design::seed_design(family_op(f, p), EngineClass::kTensorCore, block);
        for (auto& d : design::axis_coverage(t)) all.push_back(d);
      }
    }
  }
  // The layout-transform family: axis coverage on odd shapes, both directions, every storage type.
  for (auto p : {PrecisionPath::fp32, PrecisionPath::bf16, PrecisionPath::fp16}) {
    const bool first = p != PrecisionPath::bf16;
    auto seed = design::seed_design(
        ops::make_transform("transform", p, 3, 37, {5, 9}, first ? ops::ConvLayout::channels_first : ops::ConvLayout::channels_last,
                            first ? ops::ConvLayout::channels_last : ops::ConvLayout::channels_first),
        EngineClass::kSimt, 256);
    for (auto& d : design::axis_coverage(seed)) all.push_back(d);
  }
  for (const auto& e : std::filesystem::directory_iterator(std::string(argv[2]))) {
    if (!std::filesystem::exists(e.path() / "reference.json")) continue;
    const std::string ref = (e.path() / "reference.json").string();
    all.push_back(design::seed_from_reference(ref));
    // A layout-transform reference also keeps the seed of the conv it serves.
    if (all.back().op.kind == ops::OpKind::layout_transform) all.push_back(design::seed_from_reference(ref, true));
  }
  int i = 0;
  for (const auto& d : all) {
    auto dir = out / std::to_string(i++);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "candidate.cu") << codegen::emit_cuda(d);
    design::write_design((dir / "design.json").string(), d);
  }
  std::cout << all.size() << " designs\n";
}
