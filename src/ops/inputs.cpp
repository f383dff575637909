#include "ops/inputs.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/error.h"
#include "ops/parallel.h"

namespace vxsynth::ops {

std::uint64_t SplitMix64::next() {
  state_ += kGamma;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double SplitMix64::uniform_pm1() {
  return static_cast<double>(next() >> 11) * std::ldexp(1.0, -52) - 1.0;
}

namespace {

enum class Role { activation, weight, bias };

Role role_of(const std::string& name) {
  if (name == "weight" || name == "b") return Role::weight;
  if (name == "bias") return Role::bias;
  return Role::activation;
}

}  // namespace

double generated_bound(const OpSpec& spec, std::size_t input_index) {
  const auto descs = spec.inputs();
  if (input_index >= descs.size()) throw InputError("generated_bound: input index out of range");
  switch (role_of(descs[input_index].name)) {
    case Role::activation: return 1.0;
    case Role::weight: return 3.0 / std::sqrt(static_cast<double>(spec.reduction_length()));
    case Role::bias: return 0.5;
  }
  return 1.0;
}

std::vector<Tensor> generate_inputs(const OpSpec& spec, std::uint64_t seed) {
  const auto descs = spec.inputs();
  std::vector<Tensor> out;
  out.reserve(descs.size());
  for (std::size_t i = 0; i < descs.size(); ++i) {
    const TensorDesc& d = descs[i];
    Tensor t(d.dtype, d.shape, d.name);
    t.set_seed(seed);
    // One independent stream per tensor: mixing the index into the seed through a first
    // splitmix step keeps neighbouring seeds and indices uncorrelated.
    SplitMix64 seeder(seed ^ (0xa0761d6478bd642full * (i + 1)));
    const std::uint64_t stream = seeder.next();
    const double scale = generated_bound(spec, i);
    // Chunks of one sequential stream (SplitMix64::skip): the values do not depend on the
    // thread count. A real shape's weights are tens of millions of draws.
    std::vector<char> nonzero(static_cast<std::size_t>(chunk_count(t.numel())), 0);
    for_each_chunk(t.numel(), [&](std::int64_t c, std::int64_t begin, std::int64_t end) {
      SplitMix64 rng(stream);
      rng.skip(static_cast<std::uint64_t>(begin));
      bool any = false;
      for (std::int64_t e = begin; e < end; ++e) {
        t.set_from_double(e, scale * rng.uniform_pm1());
        any = any || t.get(e) != 0.0f;
      }
      nonzero[static_cast<std::size_t>(c)] = any;
    });
    const bool any_nonzero = std::find(nonzero.begin(), nonzero.end(), 1) != nonzero.end();
    if (!any_nonzero && t.numel() > 0) {
      // Practically impossible with 53-bit draws, but the contract says never all zeros.
      t.set_from_double(0, scale * 0.5);
    }
    out.push_back(std::move(t));
  }
  return out;
}

Tensor make_poisoned_output(const OpSpec& spec) {
  const TensorDesc d = spec.output();
  Tensor t(d.dtype, d.shape, d.name);
  t.fill_poison();
  return t;
}

}  // namespace vxsynth::ops
