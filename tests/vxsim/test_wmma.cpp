// Tensor unit (WMMA, vortex-isa.md §5, v2): geometry against the §5.2 table, the register /
// lane layout against the §5.3 formulas, and D = C + A*B for every supported format pair on
// every warp width, against a matrix-level reference with the documented rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "program_util.h"
#include "vxsim/tensor.h"

using namespace vxsim_test;
namespace tc = vxsynth::vxsim::tensor;

namespace {

constexpr uint32_t kRegsIn = 0x00200000, kRegsOut = 0x00300000;

// Where element words live (derived from the per-step operand selection of §5.3).
struct Layout {
  tc::Geometry g;
  uint32_t nt;
  std::pair<uint32_t, uint32_t> a(uint32_t row, uint32_t kw) const {  // (register, lane)
    const uint32_t m = row / g.tc_m, i = row % g.tc_m, k = kw / g.tc_k, z = kw % g.tc_k;
    return {g.a_base + (m / g.a_sub_blocks) * g.k_steps + k, (m % g.a_sub_blocks) * g.tc_m * g.tc_k + i * g.tc_k + z};
  }
  std::pair<uint32_t, uint32_t> b(uint32_t kw, uint32_t col) const {
    const uint32_t n = col / g.tc_n, j = col % g.tc_n, k = kw / g.tc_k, z = kw % g.tc_k;
    return {g.b_base + (k * g.n_steps + n) / g.b_sub_blocks, (n % g.b_sub_blocks) * g.tc_k * g.tc_n + j * g.tc_k + z};
  }
  std::pair<uint32_t, uint32_t> c(uint32_t row, uint32_t col) const {
    return {g.c_base + (row / g.tc_m) * g.n_steps + col / g.tc_n, (row % g.tc_m) * g.tc_n + col % g.tc_n};
  }
};

uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
uint32_t half_bits(float f) { return std::bit_cast<uint16_t>(static_cast<_Float16>(f)); }
float from_half(uint32_t h) { return static_cast<float>(std::bit_cast<_Float16>(static_cast<uint16_t>(h))); }
uint32_t bf16_bits(float f) {  // round to nearest even
  const uint32_t x = f32_bits(f);
  return (x + 0x7fff + ((x >> 16) & 1)) >> 16;
}
float from_bf16(uint32_t b) { return std::bit_cast<float>(b << 16); }

struct Pair {
  uint32_t test_case, in, out;
  const char* name;
};
const Pair kPairs[] = {{0, tc::kFp16, tc::kFp32, "fp16_fp32"}, {1, tc::kBf16, tc::kFp32, "bf16_fp32"},
                       {2, tc::kFp16, tc::kFp16, "fp16_fp16"}, {3, tc::kBf16, tc::kBf16, "bf16_bf16"},
                       {4, tc::kInt8, tc::kInt32, "int8"},     {5, tc::kUint8, tc::kInt32, "uint8"},
                       {6, tc::kInt4, tc::kInt32, "int4"},     {7, tc::kUint4, tc::kInt32, "uint4"}};

// scale multiplies the random inputs (and C by its square): 2^-10 puts fp16 results and some
// fp16 inputs in the subnormal range.
void run_pair(uint32_t nt, const Pair& p, float scale = 1.0f) {
  SCOPED_TRACE(std::string(p.name) + " threads " + std::to_string(nt) + " scale " + std::to_string(scale));
  const Layout L{tc::geometry(nt), nt};
  const tc::Geometry& g = L.g;
  const bool fp = p.in == tc::kFp16 || p.in == tc::kBf16;
  const uint32_t per_word = fp ? 2 : (p.in == tc::kInt8 || p.in == tc::kUint8) ? 4 : 8;
  const uint32_t bits = 32 / per_word;
  const uint32_t M = g.tile_m, N = g.tile_n, KW = g.tile_k, K = KW * per_word;
  std::mt19937 rng(nt * 100 + p.test_case);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  // Elements as raw subword bits.
  auto random_elem = [&]() -> uint32_t {
    if (p.in == tc::kFp16) return half_bits(dist(rng) * scale);
    if (p.in == tc::kBf16) return bf16_bits(dist(rng) * scale);
    return rng() & ((1u << bits) - 1);
  };
  std::vector<uint32_t> A(M * K), B(K * N), C(M * N);
  for (auto& x : A) x = random_elem();
  for (auto& x : B) x = random_elem();
  for (auto& x : C) {
    if (p.out == tc::kFp32) x = f32_bits(dist(rng) * 4 * scale * scale);
    else if (p.out == tc::kFp16) x = 0xffff0000u | half_bits(dist(rng) * scale * scale);
    else if (p.out == tc::kBf16) x = 0xffff0000u | bf16_bits(dist(rng) * scale * scale);
    else x = rng();
  }
  // Registers: random background, then the fragments.
  std::vector<uint32_t> regs(32 * nt);
  for (auto& r : regs) r = rng();
  auto reg = [&](std::pair<uint32_t, uint32_t> rl) -> uint32_t& { return regs[rl.first * nt + rl.second]; };
  for (uint32_t row = 0; row < M; ++row) {
    for (uint32_t kw = 0; kw < KW; ++kw) {
      uint32_t word = 0;
      for (uint32_t e = 0; e < per_word; ++e) word |= A[row * K + kw * per_word + e] << (bits * e);
      reg(L.a(row, kw)) = word;
    }
  }
  for (uint32_t kw = 0; kw < KW; ++kw) {
    for (uint32_t col = 0; col < N; ++col) {
      uint32_t word = 0;
      for (uint32_t e = 0; e < per_word; ++e) word |= B[(kw * per_word + e) * N + col] << (bits * e);
      reg(L.b(kw, col)) = word;
    }
  }
  for (uint32_t row = 0; row < M; ++row) {
    for (uint32_t col = 0; col < N; ++col) reg(L.c(row, col)) = C[row * N + col];
  }

  Simulator sim(make_config(1, 1, nt));
  sim.load_program(program_path("wmma"));
  sim.memory().write(kRegsIn, regs.data(), regs.size() * 4);
  sim.write_dcr(kDcrStartupArg0, p.test_case);
  sim.run();
  std::vector<uint32_t> out(32 * nt);
  sim.memory().read(kRegsOut, out.data(), out.size() * 4);

  auto sval = [&](uint32_t x) -> int32_t {
    if (p.in == tc::kInt8) return static_cast<int8_t>(x);
    if (p.in == tc::kInt4) return static_cast<int32_t>(x << 28) >> 28;
    return static_cast<int32_t>(x);
  };
  std::vector<bool> is_c(32 * nt, false);
  for (uint32_t row = 0; row < M; ++row) {
    for (uint32_t col = 0; col < N; ++col) {
      const auto rl = L.c(row, col);
      is_c[rl.first * nt + rl.second] = true;
      uint32_t expect = 0;
      if (p.out == tc::kFp32) {
        float acc = std::bit_cast<float>(C[row * N + col]);
        for (uint32_t k = 0; k < K; ++k) {
          const uint32_t a = A[row * K + k], b = B[k * N + col];
          const float prod = p.in == tc::kFp16 ? from_half(a) * from_half(b) : from_bf16(a) * from_bf16(b);
          acc = acc + prod;
        }
        expect = f32_bits(acc);
      } else if (p.out == tc::kFp16 || p.out == tc::kBf16) {
        const bool h = p.out == tc::kFp16;
        uint32_t acc = C[row * N + col] & 0xffff;
        for (uint32_t k = 0; k < K; ++k) {
          const uint32_t a = A[row * K + k], b = B[k * N + col];
          const float s = h ? std::fma(from_half(a), from_half(b), from_half(acc)) : std::fma(from_bf16(a), from_bf16(b), from_bf16(acc));
          acc = h ? half_bits(s) : bf16_bits(s);
        }
        expect = 0xffff0000u | acc;
      } else {
        uint32_t acc = C[row * N + col];
        for (uint32_t k = 0; k < K; ++k) acc += static_cast<uint32_t>(sval(A[row * K + k]) * sval(B[k * N + col]));
        expect = acc;
      }
      ASSERT_EQ(out[rl.first * nt + rl.second], expect) << "D[" << row << "][" << col << "]";
    }
  }
  // Every other register is untouched.
  for (uint32_t i = 0; i < out.size(); ++i) {
    if (!is_c[i]) {
      ASSERT_EQ(out[i], regs[i]) << "f" << i / nt << " lane " << i % nt;
    }
  }
}

}  // namespace

TEST(Wmma, GeometryMatchesTheSpecTable) {
  // vortex-isa.md §5.2: tile M x N x K (words), tcM x tcN x tcK, steps.
  struct Row {
    uint32_t nt, tm, tn, tk, cm, cn, ck, ms, ns, ks;
  };
  for (const Row& r : {Row{4, 8, 4, 4, 2, 2, 2, 4, 2, 2}, Row{8, 8, 8, 8, 4, 2, 2, 2, 4, 4}, Row{16, 16, 8, 8, 4, 4, 4, 4, 2, 2},
                       Row{32, 16, 16, 16, 8, 4, 4, 2, 4, 4}}) {
    const tc::Geometry g = tc::geometry(r.nt);
    EXPECT_EQ(g.tile_m, r.tm) << r.nt;
    EXPECT_EQ(g.tile_n, r.tn) << r.nt;
    EXPECT_EQ(g.tile_k, r.tk) << r.nt;
    EXPECT_EQ(g.tc_m, r.cm) << r.nt;
    EXPECT_EQ(g.tc_n, r.cn) << r.nt;
    EXPECT_EQ(g.tc_k, r.ck) << r.nt;
    EXPECT_EQ(g.m_steps * g.n_steps * g.k_steps, r.ms * r.ns * r.ks) << r.nt;
    EXPECT_EQ(g.m_steps, r.ms) << r.nt;
  }
  // Register binding: B needs 4 registers at 4 and 16 threads (B f28-f31, C f10-f17).
  EXPECT_EQ(tc::geometry(4).b_base, 28u);
  EXPECT_EQ(tc::geometry(4).c_base, 10u);
  EXPECT_EQ(tc::geometry(8).b_base, 10u);
  EXPECT_EQ(tc::geometry(8).c_base, 24u);
}

TEST(Wmma, LaneLayoutMatchesTheSpecFormulas) {
  // §5.3, fp16 (two K elements per word), in words: A[row][kw], B[kw][col], C[row][col].
  const Layout l4{tc::geometry(4), 4};
  for (uint32_t r = 0; r < 8; ++r) {
    for (uint32_t l = 0; l < 4; ++l) {
      const uint32_t m = r / 2, k = r % 2;  // A register r = 2m + k
      EXPECT_EQ(l4.a(2 * m + l / 2, 2 * k + l % 2), std::make_pair(l4.g.a_base + r, l));
      const uint32_t cm = r / 2, cn = r % 2;  // C register r = 2m + n
      EXPECT_EQ(l4.c(2 * cm + l / 2, 2 * cn + l % 2), std::make_pair(l4.g.c_base + r, l));
    }
  }
  for (uint32_t r = 0; r < 4; ++r) {
    for (uint32_t l = 0; l < 4; ++l) {
      const uint32_t k = r / 2, n = r % 2;  // B register r = 2k + n
      EXPECT_EQ(l4.b(2 * k + l % 2, 2 * n + l / 2), std::make_pair(l4.g.b_base + r, l));
    }
  }
  const Layout l8{tc::geometry(8), 8};
  for (uint32_t r = 0; r < 8; ++r) {
    for (uint32_t l = 0; l < 8; ++l) {
      EXPECT_EQ(l8.a(4 * (r / 4) + l / 2, 2 * (r % 4) + l % 2), std::make_pair(l8.g.a_base + r, l));  // r = 4m + k
      EXPECT_EQ(l8.b(2 * (r / 2) + l % 2, 4 * (r % 2) + 2 * (l / 4) + (l % 4) / 2), std::make_pair(l8.g.b_base + r, l));
      EXPECT_EQ(l8.c(4 * (r / 4) + l / 2, 2 * (r % 4) + l % 2), std::make_pair(l8.g.c_base + r, l));  // r = 4m + n
    }
  }
}

TEST(Wmma, EveryFormatPairOnEveryWarpWidth) {
  for (uint32_t nt : {1u, 2u, 4u, 8u, 16u, 32u}) {
    for (const Pair& p : kPairs) run_pair(nt, p);
  }
}

TEST(Wmma, Fp32InputsAndPartialMasksFault) {
  Simulator sim(make_config(1, 1, 8));
  sim.load_program(program_path("wmma"));
  sim.write_dcr(kDcrStartupArg0, 8);
  try {
    sim.run();
    FAIL() << "fp32 -> fp32 must be rejected";
  } catch (const SimFault& f) {
    EXPECT_EQ(f.report().kind, FaultKind::kUnsupportedInstruction);
    EXPECT_NE(f.report().message.find("format"), std::string::npos);
  }
  EXPECT_EQ(sim.counters().warp_by_class[static_cast<size_t>(OpClass::kTensor)], 0u) << "a faulting wmma does not count";
  sim.write_dcr(kDcrStartupArg0, 0);
  sim.run();
  EXPECT_EQ(sim.counters().warp_by_class[static_cast<size_t>(OpClass::kTensor)], 1u);
}

TEST(Wmma, CountersCountMicroOpsAndOperations) {
  // One wmma at each width: m_steps * n_steps * k_steps micro-ops (§5.2 table), 2 operations per
  // multiply-accumulate of the tile (K in elements: 2, 4 or 8 a word).
  struct Row {
    uint32_t nt, uops;
  };
  for (const Row& r : {Row{4, 16}, Row{8, 32}, Row{16, 16}, Row{32, 32}}) {
    const tc::Geometry g = tc::geometry(r.nt);
    for (const Pair& p : kPairs) {
      SCOPED_TRACE(std::string(p.name) + " threads " + std::to_string(r.nt));
      Simulator sim(make_config(1, 1, r.nt));
      sim.load_program(program_path("wmma"));
      sim.write_dcr(kDcrStartupArg0, p.test_case);
      sim.run();
      const Counters& ctr = sim.counters();
      const bool fp = p.in == tc::kFp16 || p.in == tc::kBf16;
      const uint32_t per_word = fp ? 2 : (p.in == tc::kInt8 || p.in == tc::kUint8) ? 4 : 8;
      const uint64_t ops = 2ull * g.tile_m * g.tile_n * g.tile_k * per_word;
      EXPECT_EQ(ctr.warp_by_class[static_cast<size_t>(OpClass::kTensor)], 1u);
      EXPECT_EQ(ctr.tensor_uops, r.uops);
      EXPECT_EQ(ctr.tensor_flops, fp ? ops : 0u);
      EXPECT_EQ(ctr.tensor_int_ops, fp ? 0u : ops);
      EXPECT_EQ(ctr.issue_slots(), ctr.warp_instructions - 1 + r.uops);
      EXPECT_DOUBLE_EQ(ctr.tensor_issue_share(), static_cast<double>(r.uops) / static_cast<double>(ctr.issue_slots()));
      const vxsynth::Json j = sim.counters_json();
      EXPECT_EQ(j["total"]["tensor"]["uops"].get<uint64_t>(), r.uops);
      EXPECT_EQ(j["total"]["tensor"]["flops"].get<uint64_t>(), fp ? ops : 0u);
      EXPECT_EQ(j["total"]["tensor"]["int_ops"].get<uint64_t>(), fp ? 0u : ops);
      EXPECT_EQ(j["cores"][0]["tensor"]["wmma_instructions"].get<uint64_t>(), 1u);
    }
  }
  // fp16 at 8 threads: 8 x 8 x 16 elements = 1024 multiply-accumulates.
  Simulator sim(make_config(1, 1, 8));
  sim.load_program(program_path("wmma"));
  sim.write_dcr(kDcrStartupArg0, 0);
  sim.run();
  EXPECT_EQ(sim.counters().tensor_flops, 2048u);
}

TEST(Wmma, PartialWarpsAndMixedFormatsFault) {
  // Case 9: only lane 0 active (Vortex asserts a full warp); 10-13: fp16 -> bf16, int8 -> fp32,
  // an unknown input id (3) and fp16 -> int32, which Vortex 2.x does not implement.
  struct Case {
    uint32_t test_case;
    FaultKind kind;
    const char* message;
  };
  for (uint32_t nt : {2u, 4u, 8u, 16u, 32u}) {
    for (const Case& k : {Case{9, FaultKind::kIllegalInstruction, "every thread of the warp active"},
                          Case{10, FaultKind::kUnsupportedInstruction, "input id 1, output id 2"},
                          Case{11, FaultKind::kUnsupportedInstruction, "input id 9, output id 0"},
                          Case{12, FaultKind::kUnsupportedInstruction, "input id 3, output id 0"},
                          Case{13, FaultKind::kUnsupportedInstruction, "input id 1, output id 8"}}) {
      SCOPED_TRACE("case " + std::to_string(k.test_case) + " threads " + std::to_string(nt));
      Simulator sim(make_config(1, 1, nt));
      sim.load_program(program_path("wmma"));
      sim.write_dcr(kDcrStartupArg0, k.test_case);
      try {
        sim.run();
        ADD_FAILURE() << "wmma must fault";
      } catch (const SimFault& f) {
        EXPECT_EQ(f.report().kind, k.kind);
        EXPECT_NE(f.report().message.find(k.message), std::string::npos) << f.report().message;
        EXPECT_NE(f.report().message.find("wmma"), std::string::npos) << f.report().message;
      }
      EXPECT_EQ(sim.counters().tensor_uops, 0u);
    }
  }
}

TEST(Wmma, SubnormalHalfInputsAndResultsRoundLikeTheModel) {
  // fp16 -> fp16 rounds every partial sum into the subnormal range here; the model rounds
  // through the compiler's _Float16, independently of tensor.h's conversion.
  for (uint32_t nt : {4u, 8u, 16u, 32u}) {
    run_pair(nt, kPairs[0], 0x1p-10f);
    run_pair(nt, kPairs[2], 0x1p-10f);
  }
}
