// The component registry: every value of every axis has a component on both backends (a
// component file left out of the link would show here first), and the choice follows the
// design point.
#include <gtest/gtest.h>

#include "codegen/compose.h"
#include "design/seed.h"

namespace vxsynth::codegen {
namespace {

template <typename Family, typename E>
void expect_all(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> names = extra;
  if constexpr (!std::is_same_v<E, void>) {
    for (const E v : design::all_values<E>()) {
      // The Hopper family's values (tma, wgmma) have an emitter of their own
      // (codegen/hopper_emitter.h), not components: tests/codegen/test_hopper_codegen.cpp.
      if constexpr (std::is_same_v<E, design::Prefetch>) {
        if (v == design::Prefetch::kTma) continue;
      }
      if constexpr (std::is_same_v<E, design::Fragment>) {
        if (design::is_wgmma(v)) continue;
      }
      names.push_back(design::to_string(v));
    }
  }
  for (const auto& name : names) {
    for (const Backend b : {Backend::kCuda, Backend::kVortex}) {
      EXPECT_NE(Registry<Family>::instance().find(name, b), nullptr)
          << Family::kFamily << " " << name << " on " << to_string(b);
    }
  }
}

TEST(Components, EveryAxisValueHasAComponentOnBothBackends) {
  expect_all<Mainloop, design::Fragment>();
  expect_all<Staging, design::Staging>();
  expect_all<Pipeline, design::Prefetch>();
  expect_all<BoundaryHandling, design::Boundary>();
  expect_all<Epilogue, design::ActivationPlacement>();
  expect_all<KRange, design::KRange>();
  expect_all<SplitK, void>({"none", "two_pass"});
}

TEST(Components, TheDesignPointChoosesThem) {
  design::DesignPoint d = design::seed_design(
      ops::make_linear("l", ops::PrecisionPath::bf16, 64, 64, 64, false, ops::Activation::none),
      design::EngineClass::kTensorCore, 128);
  d.fragment = design::Fragment::kMmaM16N8K16;
  d.split_k = 2;
  const Composer cuda(d, Backend::kCuda), vortex(d, Backend::kVortex);
  EXPECT_EQ(cuda.context().mainloop.describe(cuda.context()), "PTX mma.sync fragments");
  EXPECT_EQ(vortex.context().mainloop.describe(vortex.context()), "the Vortex tensor unit (vx_tensor.h), 16x16x32 tiles");
  EXPECT_TRUE(cuda.context().split_k.sliced());
  d.split_k = 1;
  EXPECT_FALSE(Composer(d, Backend::kCuda).context().split_k.sliced());
}

}  // namespace
}  // namespace vxsynth::codegen
