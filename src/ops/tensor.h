// A dense, row-major (last dimension fastest) tensor of f32, bf16 or f16 elements, stored as
// the raw little-endian bytes that GPU buffers and tensor files hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ops/precision.h"

namespace vxsynth::ops {

using Shape = std::vector<std::int64_t>;

// Number of elements of a shape (1 for a scalar shape []).
std::int64_t shape_numel(const Shape& shape);
std::string shape_to_string(const Shape& shape);  // "[816, 16384]"

// The poison patterns: quiet NaNs with a payload that no arithmetic produces (CUDA's canonical
// NaN is 0x7fffffff / 0x7fff, x86's is 0xffc00000). An output buffer is filled with poison
// before a run; an element that still holds exactly these bits afterwards was never written.
// They are plain bits, so they survive a tensor file round trip and numpy/torch copies.
inline constexpr std::uint32_t kPoisonF32 = 0x7fc0dead;
inline constexpr std::uint16_t kPoisonBF16 = 0x7fde;
inline constexpr std::uint16_t kPoisonF16 = 0x7ede;

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled tensor.
  Tensor(DType dtype, Shape shape, std::string name = "");

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::int64_t numel() const { return numel_; }
  std::size_t byte_size() const { return bytes_.size(); }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // Seed the values were generated from (written to the tensor file), if any.
  const std::optional<std::uint64_t>& seed() const { return seed_; }
  void set_seed(std::optional<std::uint64_t> seed) { seed_ = seed; }

  // Element value widened to fp32 (exact for every dtype).
  float get(std::int64_t i) const;
  // Stores v rounded to nearest-even into the element type.
  void set(std::int64_t i, float v);
  // Stores an fp64 value with a single rounding into the element type.
  void set_from_double(std::int64_t i, double v);
  // Raw bits of element i (the low 16 bits for bf16/f16).
  std::uint32_t bits(std::int64_t i) const;
  void set_bits(std::int64_t i, std::uint32_t bits);

  // All elements widened to fp32, and a bulk store with rounding.
  std::vector<float> to_floats() const;
  void assign_floats(const std::vector<float>& values);

  // Fills every element with the dtype's poison pattern; is_poison tests one element.
  void fill_poison();
  bool is_poison(std::int64_t i) const;

  std::uint8_t* data() { return bytes_.data(); }
  const std::uint8_t* data() const { return bytes_.data(); }

 private:
  DType dtype_ = DType::f32;
  Shape shape_;
  std::int64_t numel_ = 0;
  std::vector<std::uint8_t> bytes_;
  std::string name_;
  std::optional<std::uint64_t> seed_;
};

// Poison bits of a dtype (kPoisonF32, kPoisonBF16 or kPoisonF16).
std::uint32_t poison_bits(DType t);

}  // namespace vxsynth::ops
