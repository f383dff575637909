// Vortex 2.x tensor unit, device side (vortex-isa.md §5): WMMA fragments with the Vortex names
//   vortex::tensor::wmma_context<NT, It, Ot>  fragment_a / fragment_b / fragment_acc,
//   fill_fragment, load_matrix_sync, store_matrix_sync, mma_sync, tileM / tileN / tileK
// and the format tags fp32, fp16, bf16, int32, int8, uint8, int4, uint4 (v2 ids).
//
// Written for GCC from the ISA facts: the geometry of wmma_config_t<NT> (§5.2), the fixed FP
// register binding and the per-step lane mapping (§5.3), from which the memory <-> lane layout
// of every fragment follows. No libstdc++ (Debian ships none for this target): plain arrays and
// unrolled loops only.
//
//   using ctx = vortex::tensor::wmma_context<NUM_THREADS, vortex::tensor::fp16, vortex::tensor::fp32>;
//   ctx::fragment_a a; ctx::fragment_b b; ctx::fragment_acc c;
//   ctx::fill_fragment(c, 0.0f);
//   for (k...) { ctx::load_matrix_sync(a, A + row * K + k, K);
//                ctx::load_matrix_sync(b, B + k * N + col, N);
//                ctx::mma_sync(c, a, b, c); }
//   ctx::store_matrix_sync(C + row * N + col, c, N);
//
// Every lane of the warp must be active at mma_sync (the unit faults otherwise); the tile origin
// and leading dimension must be warp-uniform. Matrices are row-major by default; B may be
// col_major (required for the sub-byte formats, whose K values must be contiguous).
#ifndef VX_TENSOR_H
#define VX_TENSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <vx_intrinsics.h>

#ifndef __cplusplus
#error "vx_tensor.h is a C++ header"
#endif

namespace vortex {
namespace tensor {

enum mem_layout { row_major, col_major };

// Format tags: id = the v2 format id the WMMA instruction carries; bits = element width;
// dtype = the element type in memory (16-bit floats and 4-bit pairs as raw bits).
struct fp32 { static constexpr uint32_t id = 0; static constexpr uint32_t bits = 32; using dtype = float; };
struct fp16 { static constexpr uint32_t id = 1; static constexpr uint32_t bits = 16; using dtype = uint16_t; };
struct bf16 { static constexpr uint32_t id = 2; static constexpr uint32_t bits = 16; using dtype = uint16_t; };
struct int32 { static constexpr uint32_t id = 8; static constexpr uint32_t bits = 32; using dtype = int32_t; };
struct int8 { static constexpr uint32_t id = 9; static constexpr uint32_t bits = 8; using dtype = int8_t; };
struct uint8 { static constexpr uint32_t id = 10; static constexpr uint32_t bits = 8; using dtype = uint8_t; };
struct int4 { static constexpr uint32_t id = 11; static constexpr uint32_t bits = 4; using dtype = uint8_t; };
struct uint4 { static constexpr uint32_t id = 12; static constexpr uint32_t bits = 4; using dtype = uint8_t; };

namespace detail {
constexpr uint32_t log2(uint32_t v) { return v <= 1 ? 0 : 1 + log2(v / 2); }
constexpr uint32_t max(uint32_t a, uint32_t b) { return a > b ? a : b; }
}  // namespace detail

// Geometry of the unit for NT threads a warp, 8 registers a fragment (§5.2). K sizes are in
// 32-bit words.
template <uint32_t NT>
struct wmma_config_t {
  static_assert(NT >= 1 && NT <= 32 && (NT & (NT - 1)) == 0, "threads per warp: a power of two up to 32");

 private:  // not Vortex names
  static constexpr uint32_t NR = 8;
  static constexpr uint32_t tile_cap = NT * NR;

 public:
  static constexpr uint32_t tileM = 1u << ((detail::log2(tile_cap) + 1) / 2);
  static constexpr uint32_t tileN = 1u << (detail::log2(tile_cap) / 2);
  static constexpr uint32_t tileK = tile_cap / detail::max(tileM, tileN);
  static constexpr uint32_t tcM = 1u << ((detail::log2(NT) + 1) / 2);
  static constexpr uint32_t tcN = 1u << (detail::log2(NT) / 2);
  static constexpr uint32_t tcK = NT / detail::max(tcM, tcN);
  static constexpr uint32_t m_steps = tileM / tcM;
  static constexpr uint32_t n_steps = tileN / tcN;
  static constexpr uint32_t k_steps = tileK / tcK;
  static constexpr uint32_t a_sub_blocks = NT / (tcM * tcK);  // steps of m sharing one A register
  static constexpr uint32_t b_sub_blocks = NT / (tcK * tcN);  // steps of n sharing one B register
  static constexpr uint32_t NRA = tileM * tileK / NT;
  static constexpr uint32_t NRB = tileN * tileK / NT;
  static constexpr uint32_t NRC = tileM * tileN / NT;
  static_assert(NRA == 8 && NRC == 8 && (NRB == 8 || NRB == 4), "unexpected register counts");
};

template <uint32_t NT, typename It, typename Ot>
struct wmma_context {
 private:
  using cfg = wmma_config_t<NT>;
  enum frag_use_t { matrix_a, matrix_b, accumulator };

  template <frag_use_t U, uint32_t N>
  struct fragment_t {
    static constexpr frag_use_t Use = U;
    static constexpr uint32_t NR = N;
    float data[N];  // register images (bit containers: packed inputs, int32 or 16-bit results)
  };

  static constexpr bool fp_input = It::id == fp16::id || It::id == bf16::id;
  static constexpr bool int_input = It::id == int8::id || It::id == uint8::id || It::id == int4::id || It::id == uint4::id;
  static_assert((fp_input && (Ot::id == fp32::id || Ot::id == It::id)) || (int_input && Ot::id == int32::id),
                "Vortex 2.x WMMA supports fp16/bf16 -> fp32 or the same type, and int8/uint8/int4/uint4 -> int32");

  static float from_bits(uint32_t bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
  }
  static uint32_t to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
  }
  static constexpr uint32_t elems_per_word = 32 / It::bits;  // input elements per register word

 public:
  using input_t = typename It::dtype;
  using output_t = typename Ot::dtype;
  static constexpr uint32_t tileM = cfg::tileM;
  static constexpr uint32_t tileN = cfg::tileN;
  static constexpr uint32_t tileK = cfg::tileK * elems_per_word;  // in elements

  using fragment_a = fragment_t<matrix_a, cfg::NRA>;
  using fragment_b = fragment_t<matrix_b, cfg::NRB>;
  using fragment_acc = fragment_t<accumulator, cfg::NRC>;

  // Every element of the fragment = value (an accumulator takes an output value, an input
  // fragment the raw element bits).
  template <typename Frag, typename T>
  static inline __attribute__((always_inline)) void fill_fragment(Frag& dst, T value) {
    uint32_t word;
    if constexpr (Frag::Use == accumulator) {
      if constexpr (Ot::id == fp32::id) {
        word = to_bits((float)value);
      } else if constexpr (Ot::id == int32::id) {
        word = (uint32_t)(int32_t)value;
      } else {
        word = 0xFFFF0000u | (uint32_t)(uint16_t)value;  // 16-bit results are NaN-boxed
      }
    } else {
      const uint32_t mask = It::bits == 32 ? 0xFFFFFFFFu : (1u << It::bits) - 1;
      const uint32_t element = (uint32_t)value & mask;
      word = 0;
#pragma GCC unroll 8
      for (uint32_t e = 0; e < elems_per_word; ++e) word |= element << (e * It::bits);
    }
#pragma GCC unroll 8
    for (uint32_t r = 0; r < Frag::NR; ++r) dst.data[r] = from_bits(word);
  }

  // Loads the tileM x tileK (A), tileK x tileN (B) or tileM x tileN (accumulator) tile at src
  // (leading dimension ldm, in elements) into this lane's registers.
  template <mem_layout layout = row_major, typename Frag>
  static inline __attribute__((always_inline)) void load_matrix_sync(Frag& dst, const void* src, size_t ldm) {
    const uint32_t lane = (uint32_t)vx_thread_id();
    if constexpr (Frag::Use == matrix_a) {
      static_assert(layout == row_major, "matrix_a: row_major only");
      const input_t* base = (const input_t*)src;
      const uint32_t block = lane / (cfg::tcM * cfg::tcK);
      const uint32_t i = (lane % (cfg::tcM * cfg::tcK)) / cfg::tcK;
      const uint32_t z = lane % cfg::tcK;
#pragma GCC unroll 8
      for (uint32_t r = 0; r < Frag::NR; ++r) {
        const uint32_t m = (r / cfg::k_steps) * cfg::a_sub_blocks + block;
        const uint32_t kw = (r % cfg::k_steps) * cfg::tcK + z;
        // The word's elements are consecutive along K, i.e. consecutive in a row.
        dst.data[r] = load_word(base, (m * cfg::tcM + i) * ldm, kw, 1);
      }
    } else if constexpr (Frag::Use == matrix_b) {
      static_assert(It::bits >= 8 || layout == col_major, "sub-byte matrix_b must be col_major");
      const input_t* base = (const input_t*)src;
      const uint32_t block = lane / (cfg::tcK * cfg::tcN);
      const uint32_t j = (lane % (cfg::tcK * cfg::tcN)) / cfg::tcK;
      const uint32_t z = lane % cfg::tcK;
#pragma GCC unroll 8
      for (uint32_t r = 0; r < Frag::NR; ++r) {
        const uint32_t step = r * cfg::b_sub_blocks + block;  // k * n_steps + n
        const uint32_t n = step % cfg::n_steps;
        const uint32_t kw = (step / cfg::n_steps) * cfg::tcK + z;
        const uint32_t col = n * cfg::tcN + j;
        if constexpr (layout == row_major) {
          dst.data[r] = load_word(base, col, kw, ldm);  // K runs down a column: stride ldm
        } else {
          dst.data[r] = load_word(base, col * ldm, kw, 1);
        }
      }
    } else {
      const output_t* base = (const output_t*)src;
      const uint32_t i = lane / cfg::tcN;
      const uint32_t j = lane % cfg::tcN;
#pragma GCC unroll 8
      for (uint32_t r = 0; r < Frag::NR; ++r) {
        const uint32_t row = (r / cfg::n_steps) * cfg::tcM + i;
        const uint32_t col = (r % cfg::n_steps) * cfg::tcN + j;
        const size_t index = layout == row_major ? row * ldm + col : col * ldm + row;
        dst.data[r] = output_to_register(base[index]);
      }
    }
  }

  // Stores an accumulator fragment as the tileM x tileN tile at dst.
  template <mem_layout layout = row_major, typename Frag>
  static inline __attribute__((always_inline)) void store_matrix_sync(void* dst, const Frag& src, size_t ldm) {
    static_assert(Frag::Use == accumulator, "only accumulator fragments can be stored");
    output_t* base = (output_t*)dst;
    const uint32_t lane = (uint32_t)vx_thread_id();
    const uint32_t i = lane / cfg::tcN;
    const uint32_t j = lane % cfg::tcN;
#pragma GCC unroll 8
    for (uint32_t r = 0; r < Frag::NR; ++r) {
      const uint32_t row = (r / cfg::n_steps) * cfg::tcM + i;
      const uint32_t col = (r % cfg::n_steps) * cfg::tcN + j;
      const size_t index = layout == row_major ? row * ldm + col : col * ldm + row;
      base[index] = register_to_output(src.data[r]);
    }
  }

  // D = C + A * B (D may be C). The fragments are bound to the unit's fixed FP registers for the
  // one instruction: A f0-f7; B f10-f17 and C/D f24-f31 when B has 8 registers, else B f28-f31
  // and C/D f10-f17 (§5.3). A and C/D are register operands; B is loaded into its registers
  // inside the asm, because all three as operands would exceed GCC's 30 asm operands.
  static inline __attribute__((always_inline)) void mma_sync(fragment_acc& d, const fragment_a& a, const fragment_b& b,
                                                             const fragment_acc& c) {
    register float a0 asm("f0") = a.data[0];
    register float a1 asm("f1") = a.data[1];
    register float a2 asm("f2") = a.data[2];
    register float a3 asm("f3") = a.data[3];
    register float a4 asm("f4") = a.data[4];
    register float a5 asm("f5") = a.data[5];
    register float a6 asm("f6") = a.data[6];
    register float a7 asm("f7") = a.data[7];
    if constexpr (cfg::NRB == 8) {
      register float c0 asm("f24") = c.data[0];
      register float c1 asm("f25") = c.data[1];
      register float c2 asm("f26") = c.data[2];
      register float c3 asm("f27") = c.data[3];
      register float c4 asm("f28") = c.data[4];
      register float c5 asm("f29") = c.data[5];
      register float c6 asm("f30") = c.data[6];
      register float c7 asm("f31") = c.data[7];
      __asm__ volatile(
          "flw f10, 0(%[b])\n\tflw f11, 4(%[b])\n\tflw f12, 8(%[b])\n\tflw f13, 12(%[b])\n\t"
          "flw f14, 16(%[b])\n\tflw f15, 20(%[b])\n\tflw f16, 24(%[b])\n\tflw f17, 28(%[b])\n\t"
          ".insn r 0x0B, 0, 2, x%[ot], x%[it], x0"
          : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3), "+f"(c4), "+f"(c5), "+f"(c6), "+f"(c7)
          : "f"(a0), "f"(a1), "f"(a2), "f"(a3), "f"(a4), "f"(a5), "f"(a6), "f"(a7), [b] "r"(b.data),
            [ot] "i"(Ot::id), [it] "i"(It::id)
          : "f10", "f11", "f12", "f13", "f14", "f15", "f16", "f17", "memory");
      d.data[0] = c0; d.data[1] = c1; d.data[2] = c2; d.data[3] = c3;
      d.data[4] = c4; d.data[5] = c5; d.data[6] = c6; d.data[7] = c7;
    } else {
      register float c0 asm("f10") = c.data[0];
      register float c1 asm("f11") = c.data[1];
      register float c2 asm("f12") = c.data[2];
      register float c3 asm("f13") = c.data[3];
      register float c4 asm("f14") = c.data[4];
      register float c5 asm("f15") = c.data[5];
      register float c6 asm("f16") = c.data[6];
      register float c7 asm("f17") = c.data[7];
      __asm__ volatile(
          "flw f28, 0(%[b])\n\tflw f29, 4(%[b])\n\tflw f30, 8(%[b])\n\tflw f31, 12(%[b])\n\t"
          ".insn r 0x0B, 0, 2, x%[ot], x%[it], x0"
          : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3), "+f"(c4), "+f"(c5), "+f"(c6), "+f"(c7)
          : "f"(a0), "f"(a1), "f"(a2), "f"(a3), "f"(a4), "f"(a5), "f"(a6), "f"(a7), [b] "r"(b.data),
            [ot] "i"(Ot::id), [it] "i"(It::id)
          : "f28", "f29", "f30", "f31", "memory");
      d.data[0] = c0; d.data[1] = c1; d.data[2] = c2; d.data[3] = c3;
      d.data[4] = c4; d.data[5] = c5; d.data[6] = c6; d.data[7] = c7;
    }
  }

 private:
  // One register word of an input fragment: elems_per_word elements along K starting at word
  // kw, element e at base[offset + (kw * elems_per_word + e) * stride]. Sub-byte elements are
  // packed two a byte in memory along K (stride 1 only).
  static inline __attribute__((always_inline)) float load_word(const input_t* base, size_t offset, uint32_t kw,
                                                               size_t stride) {
    if constexpr (It::bits < 8) {
      const uint8_t* bytes = (const uint8_t*)base + offset / 2 + kw * 4;
      uint32_t word;
      memcpy(&word, bytes, 4);
      return from_bits(word);
    } else if constexpr (It::bits == 32) {
      return from_bits(((const uint32_t*)base)[offset + kw * stride]);
    } else {
      const input_t* first = base + offset + (size_t)kw * elems_per_word * stride;
      uint32_t word = 0;
#pragma GCC unroll 4
      for (uint32_t e = 0; e < elems_per_word; ++e) {
        uint32_t element;
        if constexpr (It::bits == 16) {
          element = *(const uint16_t*)(first + e * stride);
        } else {
          element = *(const uint8_t*)(first + e * stride);
        }
        word |= element << (e * It::bits);
      }
      return from_bits(word);
    }
  }

  static inline float output_to_register(output_t value) {
    if constexpr (Ot::id == fp32::id) {
      return value;
    } else if constexpr (Ot::id == int32::id) {
      return from_bits((uint32_t)value);
    } else {
      return from_bits(0xFFFF0000u | (uint32_t)value);
    }
  }

  static inline output_t register_to_output(float reg) {
    if constexpr (Ot::id == fp32::id) {
      return reg;
    } else if constexpr (Ot::id == int32::id) {
      return (output_t)to_bits(reg);
    } else {
      return (output_t)(to_bits(reg) & 0xFFFFu);
    }
  }
};

}  // namespace tensor
}  // namespace vortex

#endif  // VX_TENSOR_H
