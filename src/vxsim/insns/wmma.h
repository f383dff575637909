// wmma (Vortex tensor unit, 2.x): D = C + A * B on the warp's fixed FP register fragments
// (vortex-isa.md §5). The rd field is the output format, rs1 the input format. Expanded into
// m_steps * n_steps * k_steps steps, k outer, then m, n inner; each step updates C in place,
// accumulating in increasing K order:
//   fp16/bf16 -> fp32: fp32 multiply rounded, fp32 add rounded (not fused);
//   fp16 -> fp16, bf16 -> bf16: fp32 fused multiply-add, rounded to the 16-bit format per element;
//   int8/uint8/int4/uint4 -> int32: integer multiply-accumulate (wrapping).
// 16-bit results sit in the low half of the register, upper half all ones (NaN-boxed).
#pragma once

WARP(wmma) {
  namespace tc = tensor;
  const uint32_t out = d.rd, in = d.rs1;
  const bool fp_in = in == tc::kFp16 || in == tc::kBf16;
  const bool int_in = in == tc::kInt8 || in == tc::kUint8 || in == tc::kInt4 || in == tc::kUint4;
  if (!((fp_in && (out == tc::kFp32 || out == in)) || (int_in && out == tc::kInt32))) {
    TRAP(kUnsupportedInstruction, "wmma: unsupported format combination (input id " + std::to_string(in) +
                                      ", output id " + std::to_string(out) + "; Vortex 2.x ids)");
  }
  if (w.tmask != c.full_mask) TRAP(kIllegalInstruction, "wmma needs every thread of the warp active");
  const tc::Geometry g = tc::geometry(c.nt);
  const bool bf = in == tc::kBf16;
  auto elem_f = [&](uint32_t word, uint32_t e) {
    const uint32_t h = word >> (16 * e);
    return bf ? tc::bf16_to_float(h) : tc::half_to_float(h & 0xffff);
  };
  auto elem_i = [&](uint32_t word, uint32_t e) -> int32_t {
    switch (in) {
      case tc::kInt8: return static_cast<int8_t>(word >> (8 * e));
      case tc::kUint8: return static_cast<uint8_t>(word >> (8 * e));
      case tc::kInt4: return static_cast<int32_t>(word << (28 - 4 * e)) >> 28;
      default: return static_cast<int32_t>((word >> (4 * e)) & 0xf);
    }
  };
  const uint32_t per_word = fp_in ? 2 : (in == tc::kInt8 || in == tc::kUint8) ? 4 : 8;
  const uint64_t macs = uint64_t{g.tile_m} * g.tile_n * g.tile_k * per_word;
  c.ctr.tensor_uops += g.m_steps * g.n_steps * g.k_steps;
  (fp_in ? c.ctr.tensor_flops : c.ctr.tensor_int_ops) += 2 * macs;

  for (uint32_t k = 0; k < g.k_steps; ++k) {
    for (uint32_t m = 0; m < g.m_steps; ++m) {
      for (uint32_t n = 0; n < g.n_steps; ++n) {
        const uint32_t* a = w.f[g.a_base + (m / g.a_sub_blocks) * g.k_steps + k];
        const uint32_t* b = w.f[g.b_base + (k * g.n_steps + n) / g.b_sub_blocks];
        uint32_t* acc_reg = w.f[g.c_base + m * g.n_steps + n];
        const uint32_t a_off = (m % g.a_sub_blocks) * g.tc_m * g.tc_k;
        const uint32_t b_off = (n % g.b_sub_blocks) * g.tc_k * g.tc_n;
        if (out == tc::kFp32 && fp_in) {
          // fp16/bf16 -> fp32: the row's tc_n outputs (at most 4: 32 threads) advance together, each in
          // its own increasing-K order, so their dependent adds overlap (the same results as
          // one output after the other).
          static_assert(kMaxThreads <= 32, "a row of tc_n <= 4 outputs (tensor::geometry at 32 threads) fits acc[4]");
          for (uint32_t i = 0; i < g.tc_m; ++i) {
            float acc[4];
            for (uint32_t j = 0; j < g.tc_n; ++j) acc[j] = std::bit_cast<float>(acc_reg[i * g.tc_n + j]);
            for (uint32_t z = 0; z < g.tc_k; ++z) {
              const uint32_t wa = a[a_off + i * g.tc_k + z];
              for (uint32_t e = 0; e < 2; ++e) {
                const float fa = elem_f(wa, e);
                for (uint32_t j = 0; j < g.tc_n; ++j) {
                  const float product = fa * elem_f(b[b_off + j * g.tc_k + z], e);
                  acc[j] = acc[j] + product;
                }
              }
            }
            for (uint32_t j = 0; j < g.tc_n; ++j) acc_reg[i * g.tc_n + j] = canonical_bits(acc[j]);
          }
          continue;
        }
        for (uint32_t i = 0; i < g.tc_m; ++i) {
          for (uint32_t j = 0; j < g.tc_n; ++j) {
            uint32_t& dst = acc_reg[i * g.tc_n + j];
            if (int_in) {
              uint32_t acc = dst;
              for (uint32_t z = 0; z < g.tc_k; ++z) {
                const uint32_t wa = a[a_off + i * g.tc_k + z], wb = b[b_off + j * g.tc_k + z];
                for (uint32_t e = 0; e < per_word; ++e) acc += static_cast<uint32_t>(elem_i(wa, e) * elem_i(wb, e));
              }
              dst = acc;
            } else if (out == tc::kFp32) {
              float acc = std::bit_cast<float>(dst);
              for (uint32_t z = 0; z < g.tc_k; ++z) {
                const uint32_t wa = a[a_off + i * g.tc_k + z], wb = b[b_off + j * g.tc_k + z];
                for (uint32_t e = 0; e < 2; ++e) {
                  const float product = elem_f(wa, e) * elem_f(wb, e);
                  acc = acc + product;
                }
              }
              dst = canonical_bits(acc);
            } else {
              uint32_t acc = dst & 0xffff;
              for (uint32_t z = 0; z < g.tc_k; ++z) {
                const uint32_t wa = a[a_off + i * g.tc_k + z], wb = b[b_off + j * g.tc_k + z];
                for (uint32_t e = 0; e < 2; ++e) {
                  const float sum = std::fma(elem_f(wa, e), elem_f(wb, e), bf ? tc::bf16_to_float(acc) : tc::half_to_float(acc));
                  acc = bf ? tc::float_to_bf16(sum) : tc::float_to_half(sum);
                }
              }
              dst = 0xffff0000u | acc;
            }
          }
        }
      }
    }
  }
  return NEXT_PC;
}
