#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "common/error.h"
#include "temp_dir.h"
#include "ops/inputs.h"
#include "ops/tensor_file.h"

using namespace vxsynth;
using namespace vxsynth::ops;

namespace {

// One private folder per test process (fixed /tmp names collided between concurrent runs).
std::string temp_path(const std::string& name) {
  static const test_support::TempDir dir("ops-tensor");
  return dir / name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

void expect_error(const std::string& path, const char* field_fragment) {
  try {
    read_tensor_file(path);
    FAIL() << "read " << path << " without error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(field_fragment), std::string::npos) << e.what();
    EXPECT_EQ(e.file(), path);
  }
}

}  // namespace

TEST(TensorFile, RoundTripEveryDtypeBitExact) {
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    Tensor x(t, {3, 5, 7}, "x");
    x.set_seed(42);
    SplitMix64 rng(9);
    for (std::int64_t i = 0; i < x.numel(); ++i) x.set_bits(i, static_cast<std::uint32_t>(rng.next()));
    x.set_bits(1, poison_bits(t));
    const std::string path = temp_path("rt_" + to_string(t) + ".tensor");
    write_tensor_file(path, x);
    const Tensor y = read_tensor_file(path);
    EXPECT_EQ(y.dtype(), t);
    EXPECT_EQ(y.shape(), x.shape());
    EXPECT_EQ(y.name(), "x");
    ASSERT_TRUE(y.seed().has_value());
    EXPECT_EQ(*y.seed(), 42u);
    for (std::int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(y.bits(i), x.bits(i)) << i;
    EXPECT_TRUE(y.is_poison(1));
    EXPECT_TRUE(std::isnan(y.get(1)));
    // Data starts at a 64-byte boundary, right after the header.
    const std::string bytes = slurp(path);
    EXPECT_EQ(bytes.substr(0, 8), "VXTENSOR");
    EXPECT_EQ((bytes.size() - x.byte_size()) % 64, 0u);
  }
}

TEST(TensorFile, PoisonedOutputSurvivesAndIsDistinctFromComputedNaN) {
  const OpSpec s = make_linear("l", PrecisionPath::bf16, 4, 6, 8);
  Tensor y = make_poisoned_output(s);
  y.set(3, std::nanf(""));  // a computed NaN is not poison
  y.set(4, 1.5f);
  const std::string path = temp_path("poison.tensor");
  write_tensor_file(path, y);
  const Tensor r = read_tensor_file(path);
  EXPECT_TRUE(r.is_poison(0));
  EXPECT_FALSE(r.is_poison(3));
  EXPECT_TRUE(std::isnan(r.get(3)));
  EXPECT_FALSE(r.is_poison(4));
  // Poison patterns are quiet NaNs that standard conversions do not produce.
  EXPECT_NE(fp32_to_bf16_bits(std::nanf("")), kPoisonBF16);
  EXPECT_NE(fp32_to_fp16_bits(std::nanf("")), kPoisonF16);
  EXPECT_TRUE(std::isnan(std::bit_cast<float>(kPoisonF32)));
  EXPECT_TRUE(kPoisonF32 & 0x00400000u);  // quiet bit: copies through FPU registers keep it
}

TEST(TensorFile, EmptyAndScalarShapes) {
  for (const Shape& shape : {Shape{}, Shape{0, 3}}) {
    Tensor x(DType::f16, shape, "s");
    if (x.numel()) x.set(0, 2.0f);
    const std::string path = temp_path("shape.tensor");
    write_tensor_file(path, x);
    const Tensor y = read_tensor_file(path);
    EXPECT_EQ(y.shape(), shape);
    EXPECT_EQ(y.numel(), x.numel());
  }
}

TEST(TensorFile, BadFilesGiveClearErrors) {
  Tensor x(DType::f32, {2, 2}, "x");
  const std::string good = temp_path("good.tensor");
  write_tensor_file(good, x);
  const std::string bytes = slurp(good);

  const std::string bad = temp_path("bad.tensor");
  spit(bad, "NOTATENSOR-------");
  expect_error(bad, "magic");
  spit(bad, bytes.substr(0, bytes.size() - 3));
  expect_error(bad, "data");
  spit(bad, bytes + "xx");
  expect_error(bad, "trailing");
  spit(bad, bytes.substr(0, 20));
  expect_error(bad, "header");

  std::string wrong_dtype = bytes;
  wrong_dtype.replace(wrong_dtype.find("float32"), 7, "float64");
  spit(bad, wrong_dtype);
  expect_error(bad, "float64");

  std::string wrong_schema = bytes;
  wrong_schema.replace(wrong_schema.find("tensor/1"), 8, "tensor/9");
  spit(bad, wrong_schema);
  expect_error(bad, "tensor/9");

  std::string neg = bytes;
  neg.replace(neg.find("[2,2]"), 5, "[2,-2]");
  spit(bad, neg);
  expect_error(bad, "shape");

  expect_error(temp_path("missing.tensor"), "cannot open");
}

// Files written by python/vxsynth/tensor_file.py (tests/data/ops/interop_py_*.tensor) read here
// bit for bit: the same values rounded by the C++ conversions, poison at the last element.
TEST(TensorFile, ReadsFilesWrittenByPython) {
  const float vals[8] = {1.0f, -2.5f, 0.1f, 65519.0f, 1e-8f, -0.0f, 3.0e38f, std::numeric_limits<float>::infinity()};
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    const Tensor x = read_tensor_file("data/ops/interop_py_" + to_string(t) + ".tensor");
    ASSERT_EQ(x.shape(), (Shape{3, 3}));
    ASSERT_EQ(x.dtype(), t);
    EXPECT_EQ(*x.seed(), 12345678901234567ull);
    Tensor mine(t, {3, 3});
    for (int i = 0; i < 8; ++i) {
      mine.set(i, vals[i]);
      EXPECT_EQ(x.bits(i), mine.bits(i)) << to_string(t) << " element " << i;
    }
    EXPECT_TRUE(x.is_poison(8));
  }
}

// Corrupted files (random bytes changed, truncated, header length rewritten) give an InputError
// or a valid tensor, never a crash, another exception or a huge allocation.
TEST(TensorFile, CorruptedFilesNeverCrash) {
  Tensor x(DType::bf16, {5, 7}, "x");
  x.set_seed(3);
  const std::string good = temp_path("fuzz_src.tensor");
  write_tensor_file(good, x);
  const std::string bytes = slurp(good);
  const std::string bad = temp_path("fuzz.tensor");
  SplitMix64 rng(17);
  int errors = 0;
  for (int iter = 0; iter < 1000; ++iter) {
    std::string b = bytes;
    const int edits = 1 + static_cast<int>(rng.next() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng.next() % std::min<std::size_t>(b.size(), 140);  // mostly the header
      b[at] = static_cast<char>(rng.next() & 0xff);
    }
    if (rng.next() % 8 == 0) b.resize(rng.next() % b.size());
    if (rng.next() % 16 == 0) b.replace(b.find("[5,7]") == std::string::npos ? 0 : b.find("[5,7]"), 5, "[99999999999,99999999]");
    spit(bad, b);
    try {
      const Tensor t = read_tensor_file(bad);
      EXPECT_EQ(static_cast<std::size_t>(t.numel()) * 2, t.byte_size());
    } catch (const InputError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 300);
}
