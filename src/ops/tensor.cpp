#include "ops/tensor.h"

#include <bit>
#include <cstring>
#include <stdexcept>

namespace vxsynth::ops {

std::int64_t shape_numel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::uint32_t poison_bits(DType t) {
  switch (t) {
    case DType::f32: return kPoisonF32;
    case DType::bf16: return kPoisonBF16;
    case DType::f16: return kPoisonF16;
  }
  return kPoisonF32;
}

Tensor::Tensor(DType dtype, Shape shape, std::string name)
    : dtype_(dtype), shape_(std::move(shape)), name_(std::move(name)) {
  for (std::int64_t d : shape_) {
    if (d < 0) throw std::invalid_argument("Tensor: negative dimension in " + shape_to_string(shape_));
  }
  numel_ = shape_numel(shape_);
  bytes_.assign(static_cast<std::size_t>(numel_) * static_cast<std::size_t>(dtype_size(dtype_)), 0);
}

// Element access goes through memcpy: little-endian hosts only (checked in tensor_file.cpp).
std::uint32_t Tensor::bits(std::int64_t i) const {
  if (dtype_ == DType::f32) {
    std::uint32_t b;
    std::memcpy(&b, bytes_.data() + 4 * i, 4);
    return b;
  }
  std::uint16_t h;
  std::memcpy(&h, bytes_.data() + 2 * i, 2);
  return h;
}

void Tensor::set_bits(std::int64_t i, std::uint32_t b) {
  if (dtype_ == DType::f32) {
    std::memcpy(bytes_.data() + 4 * i, &b, 4);
  } else {
    const std::uint16_t h = static_cast<std::uint16_t>(b);
    std::memcpy(bytes_.data() + 2 * i, &h, 2);
  }
}

float Tensor::get(std::int64_t i) const {
  const std::uint32_t b = bits(i);
  switch (dtype_) {
    case DType::f32: return std::bit_cast<float>(b);
    case DType::bf16: return bf16_bits_to_fp32(static_cast<std::uint16_t>(b));
    case DType::f16: return fp16_bits_to_fp32(static_cast<std::uint16_t>(b));
  }
  return 0.0f;
}

void Tensor::set(std::int64_t i, float v) {
  switch (dtype_) {
    case DType::f32: set_bits(i, std::bit_cast<std::uint32_t>(v)); break;
    case DType::bf16: set_bits(i, fp32_to_bf16_bits(v)); break;
    case DType::f16: set_bits(i, fp32_to_fp16_bits(v)); break;
  }
}

void Tensor::set_from_double(std::int64_t i, double v) {
  switch (dtype_) {
    case DType::f32: set(i, static_cast<float>(v)); break;
    case DType::bf16: set_bits(i, fp64_to_bf16_bits(v)); break;
    case DType::f16: set_bits(i, fp64_to_fp16_bits(v)); break;
  }
}

std::vector<float> Tensor::to_floats() const {
  std::vector<float> out(static_cast<std::size_t>(numel_));
  if (dtype_ == DType::f32) {
    std::memcpy(out.data(), bytes_.data(), bytes_.size());
    return out;
  }
  for (std::int64_t i = 0; i < numel_; ++i) out[static_cast<std::size_t>(i)] = get(i);
  return out;
}

void Tensor::assign_floats(const std::vector<float>& values) {
  if (static_cast<std::int64_t>(values.size()) != numel_) {
    throw std::invalid_argument("Tensor::assign_floats: " + std::to_string(values.size()) +
                                " values for " + std::to_string(numel_) + " elements");
  }
  for (std::int64_t i = 0; i < numel_; ++i) set(i, values[static_cast<std::size_t>(i)]);
}

void Tensor::fill_poison() {
  const std::uint32_t p = poison_bits(dtype_);
  for (std::int64_t i = 0; i < numel_; ++i) set_bits(i, p);
}

bool Tensor::is_poison(std::int64_t i) const { return bits(i) == poison_bits(dtype_); }

}  // namespace vxsynth::ops
