#include "codegen/hopper_emitter.h"

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "codegen/cuda_abi.h"
#include "codegen/generator.h"
#include "design/hopper_family.h"
#include "design/validity.h"

namespace vxsynth::codegen {

using design::DesignPoint;

namespace {

// The wgmma of one k-step: m64 x N x k, accumulators d[0 .. N/2), operands from shared-memory
// descriptors; for bf16/fp16 the immediates are scale-d, scale-a, scale-b, transpose-a, transpose-b
// (both K-major: 0), for tf32 only the three scales.
std::string wgmma_function(int n, const std::string& ab, int k) {
  const int regs = n / 2;
  std::ostringstream s;
  s << "// One wgmma.mma_async m64n" << n << "k" << k << " (" << ab << "): accumulators d[0.." << regs
    << "), A and B from shared-memory descriptors.\n";
  s << "__device__ __forceinline__ void wgmma_tile(float* d, unsigned long long da, unsigned long long db) {\n";
  s << "  asm volatile(\"wgmma.mma_async.sync.aligned.m64n" << n << "k" << k << ".f32." << ab << "." << ab << " {";
  for (int i = 0; i < regs; ++i) s << (i ? "," : "") << "%" << i;
  s << "}, %" << regs << ", %" << regs + 1 << ", " << (ab == "tf32" ? "1, 1, 1" : "1, 1, 1, 0, 0") << ";\\n\"\n               : ";
  for (int i = 0; i < regs; ++i) s << (i ? ", " : "") << "\"+f\"(d[" << i << "])";
  s << "\n               : \"l\"(da), \"l\"(db));\n}\n\n";
  return s.str();
}

// The fixed body around the GEMM kernel: everything below reads the constants of the prelude.
constexpr const char* kHead = R"cu(
struct Params {
  long long M, N, K, batch;
  long long a_stride, b_stride;  // batch strides in elements (0: broadcast)
  long long a_elems, b_elems;    // elements of the A and B tensors (the tf32 rounding copies)
  // convolution (channels first, groups 1): implicit GEMM over an im2col copy of the input
  long long n_img, c_in, h, w, k_out, r, s, p, q, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  @@params_partials@@
};

struct __align__(1024) Ring {
  elem_t a[kStages][kBM * kBK];
  elem_t b[kStages][kBN * kBK];
  unsigned long long full[kStages];
  unsigned long long empty[kStages];
  @@ring_bias@@
  @@ring_epilogue@@
};

__device__ __forceinline__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void bar_init(unsigned long long* b, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(b)), "r"(count));
}
__device__ __forceinline__ void bar_expect(unsigned long long* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_arrive(unsigned long long* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(b)) : "memory");
}
__device__ __forceinline__ void bar_wait(unsigned long long* b, int parity) {
  asm volatile("{\n.reg .pred p;\nWAIT_%=:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WAIT_%=;\n}\n"
               ::"r"(smem_addr(b)), "r"(parity) : "memory");
}
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, unsigned long long* bar, int k, int row, int z) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];"
               ::"r"(smem_addr(dst)), "l"(map), "r"(smem_addr(bar)), "r"(k), "r"(row), "r"(z) : "memory");
}
@@tma_load_1d@@
// K-major tile of 128-byte rows with the 128-byte swizzle: 8-row groups 1024 bytes apart.
__device__ __forceinline__ unsigned long long tile_desc(const void* p) {
  const unsigned long long addr = smem_addr(p);
  return ((addr & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}
)cu";

// The GEMM kernel of the designs whose later axes (split_k, register_split, wgmma_in_flight,
// schedule) are at their defaults: the text those designs were profiled with, kept byte for byte.
constexpr const char* kGemmGrid = R"cu(__global__ void __launch_bounds__(kThreads, 1)
gemm(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
     const __grid_constant__ CUtensorMap map_out,@@bias_map_param@@ const Params p,
     const elem_t* __restrict__ bias, elem_t* __restrict__ out) {
  extern __shared__ unsigned char raw[];
  Ring& s = *reinterpret_cast<Ring*>((reinterpret_cast<size_t>(raw) + 1023) & ~size_t(1023));
  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
  // kRasterM: blockIdx.x walks the M tiles, so consecutive blocks share one B tile in L2
  const int m0 = (kRasterM ? blockIdx.x : blockIdx.y) * kBM, n0 = (kRasterM ? blockIdx.y : blockIdx.x) * kBN;
  const int z = blockIdx.z;
  if (m0 >= p.M || n0 >= p.N) return;  // a block the cluster shape added beyond the tiles
  const int ktiles = static_cast<int>((p.K + kBK - 1) / kBK);
  if (threadIdx.x == 0) {
    for (int i = 0; i < kStages; ++i) {
      bar_init(&s.full[i], 1);
      bar_init(&s.empty[i], kConsumers);
    }
    @@bias_bar_init@@
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (wg == 0) {  // producer: one thread keeps the ring full
    if (t == 0) {
      const int za = p.a_stride == 0 ? 0 : z, zb = p.b_stride == 0 ? 0 : z;
      @@bias_copy@@
      for (int kt = 0; kt < ktiles; ++kt) {
        const int st = kt % kStages;
        if (kt >= kStages) bar_wait(&s.empty[st], ((kt / kStages) - 1) & 1);
        bar_expect(&s.full[st], (kBM + kBN) * kBK * sizeof(elem_t));
        tma_load(s.a[st], &map_a, &s.full[st], kt * kBK, m0, za);
        tma_load(s.b[st], &map_b, &s.full[st], kt * kBK, n0, zb);
      }
    }
    return;
  }
  const int c = wg - 1;
  float acc[kBN / 2];
#pragma unroll
  for (int i = 0; i < kBN / 2; ++i) acc[i] = 0.f;
  for (int kt = 0; kt < ktiles; ++kt) {
    const int st = kt % kStages;
    bar_wait(&s.full[st], (kt / kStages) & 1);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < kBK / kKStep; ++kk) {  // each k-step is 32 bytes of a 128-byte row
      wgmma_tile(acc, tile_desc(&s.a[st][c * 64 * kBK]) + 2 * kk, tile_desc(&s.b[st][0]) + 2 * kk);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    // one group stays in flight; the stage the previous group read is free once it completed
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    if (t == 0 && kt > 0) bar_arrive(&s.empty[(kt - 1) % kStages]);
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  @@bias_wait@@
  const int warp = t / 32, lane = t % 32;
  if constexpr (kStoreTma) {
    // every consumer is past the mainloop before the ring is reused (named barrier 1, consumers only)
    asm volatile("bar.sync 1, %0;" ::"n"(128 * kConsumers) : "memory");
    elem_t* tile = reinterpret_cast<elem_t*>(&s.a[0][0]) + c * 64 * kBN;
#pragma unroll
    for (int j = 0; j < kBN / 8; ++j) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = warp * 16 + lane / 4 + 8 * h;
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int col = 8 * j + 2 * (lane % 4) + e;
          float v = acc[4 * j + 2 * h + e];
          @@bias_add_tile@@
          tile[row * kBN + col] = from_float(v);
        }
      }
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // ordinary stores -> the copy engine
    asm volatile("bar.sync %0, 128;" ::"r"(2 + c) : "memory");
    if (t == 0) {
      asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];"
                   ::"l"(&map_out), "r"(smem_addr(tile)), "r"(n0), "r"(m0 + c * 64), "r"(z) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    return;
  }
  // Direct epilogue: accumulator (warp w, lane l): acc[4j + 2h + e] -> row 16w + l/4 + 8h, col 8j + 2(l%4) + e.
#pragma unroll
  for (int j = 0; j < kBN / 8; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const long long row = m0 + c * 64 + warp * 16 + lane / 4 + 8 * h;
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const long long col = n0 + 8 * j + 2 * (lane % 4) + e;
        if (row >= p.M || col >= p.N) continue;
        float v = acc[4 * j + 2 * h + e];
        @@bias_add_direct@@
        if (kIsConv) {  // row = (image, position), col = output channel
          const long long img = row / (p.p * p.q), pos = row % (p.p * p.q);
          out[(img * p.k_out + col) * p.p * p.q + pos] = from_float(v);
        } else {
          out[(static_cast<long long>(z) * p.M + row) * p.N + col] = from_float(v);
        }
      }
    }
  }
}
)cu";

constexpr const char* kTail = R"cu(
// im2col of a channels-first input into a dense [M][K] operand: m = (image, y, x), k = (c, r, s).
__global__ void im2col(const Params p, const elem_t* __restrict__ in, elem_t* __restrict__ cols) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= p.M * p.K) return;
  const long long m = idx / p.K, k = idx % p.K;
  const long long img = m / (p.p * p.q), y = (m / p.q) % p.p, x = m % p.q;
  const long long ch = k / (p.r * p.s), r = (k / p.s) % p.r, sx = k % p.s;
  const long long iy = y * p.stride_h - p.pad_h + r * p.dil_h, ix = x * p.stride_w - p.pad_w + sx * p.dil_w;
  const bool inside = iy >= 0 && iy < p.h && ix >= 0 && ix < p.w;
  cols[idx] = inside ? operand(in[((img * p.c_in + ch) * p.h + iy) * p.w + ix]) : from_float(0.f);
}

// The tf32 operands rounded to nearest into the workspace (kRoundTf32 only).
__global__ void round_copy(const elem_t* __restrict__ in, elem_t* __restrict__ copy, long long n) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx < n) copy[idx] = operand(in[idx]);
}
@@reduce_kernel@@

// Tensor maps come from the driver's cuTensorMapEncodeTiled, reached through the runtime.
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  if (fn == nullptr) {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) == cudaSuccess &&
        q == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }
  return fn;
}

// [batch][rows][K] K-contiguous operand, boxes of kBK x box_rows (one z), 128-byte swizzle.
bool make_map(CUtensorMap* map, const void* base, long long rows, long long K, long long batch, long long stride,
              int box_rows) {
  auto encode = encode_tiled();
  if (encode == nullptr) return false;
  const long long zs = stride == 0 ? rows * K : stride;
  if ((K * sizeof(elem_t)) % 16 != 0 || (zs * sizeof(elem_t)) % 16 != 0) return false;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(K), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(stride == 0 ? 1 : batch)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(K * sizeof(elem_t)), static_cast<cuuint64_t>(zs * sizeof(elem_t))};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(kBK), static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t unit[3] = {1, 1, 1};
  return encode(map, kMapType, 3, const_cast<void*>(base), dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The output [batch][M][N] (N contiguous), stored in 64-row x @@out_box_doc@@.
bool make_out_map(CUtensorMap* map, void* base, const Params& p) {
  auto encode = encode_tiled();
  if (encode == nullptr || (p.N * sizeof(elem_t)) % 16 != 0) return false;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(p.N), static_cast<cuuint64_t>(p.M), static_cast<cuuint64_t>(@@out_planes@@)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(p.N * sizeof(elem_t)),
                                 static_cast<cuuint64_t>(p.M * p.N * sizeof(elem_t))};
  const cuuint32_t box[3] = {@@out_box_cols@@, 64, 1};
  const cuuint32_t unit[3] = {1, 1, 1};
  return encode(map, kMapType, 3, base, dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
                @@out_swizzle@@, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}
@@make_bias_map@@

bool make_params(const vxsynth_problem* pr, Params* p) {
  if (pr == nullptr || pr->abi_version != VXSYNTH_CANDIDATE_ABI_VERSION) return false;
  if (pr->op_kind != kOpKind || pr->dtype != kDType || pr->precision != kPrecision) return false;
  if (pr->has_bias != (kHasBias ? 1 : 0) || pr->activation != VXSYNTH_ACT_NONE) return false;
  *p = Params{};
  if (kIsConv) {
    if (pr->layout != VXSYNTH_LAYOUT_CHANNELS_FIRST || pr->groups != 1) return false;
    p->n_img = pr->n_img; p->c_in = pr->c_in; p->h = pr->h; p->w = pr->w; p->k_out = pr->k_out;
    p->r = pr->r; p->s = pr->s; p->p = pr->p; p->q = pr->q; p->stride_h = pr->stride_h; p->stride_w = pr->stride_w;
    p->pad_h = pr->pad_h; p->pad_w = pr->pad_w; p->dil_h = pr->dilation_h; p->dil_w = pr->dilation_w;
    p->M = pr->n_img * pr->p * pr->q; p->N = pr->k_out; p->K = pr->c_in * pr->r * pr->s; p->batch = 1;
    p->a_elems = p->M * p->K;  // the im2col copy
    p->b_elems = p->N * p->K;
  } else {
    // both operands K-major: A(z, m, k) = a[.. + m*K + k], B(z, k, n) = b[.. + n*K + k]
    if (pr->op_kind == VXSYNTH_OP_MATMUL && (pr->transpose_a != 0 || pr->transpose_b != 1 || pr->batch_rank > 1))
      return false;
    p->M = pr->m; p->N = pr->n; p->K = pr->k; p->batch = pr->batch_count;
    p->a_stride = pr->batch_rank == 1 ? pr->a_batch_stride[0] : 0;
    p->b_stride = pr->batch_rank == 1 ? pr->b_batch_stride[0] : 0;
    p->a_elems = (p->a_stride == 0 ? 1 : p->batch) * p->M * p->K;
    p->b_elems = (p->b_stride == 0 ? 1 : p->batch) * p->N * p->K;
  }
  if (kK > 0 && p->K != kK) return false;
  return p->M > 0 && p->N > 0 && p->K > 0 && p->batch > 0 && p->batch <= 65535;
}

// Workspace: the im2col copy (a convolution) or A's rounded copy (tf32), then B's rounded copy (tf32).
struct Workspace {
  @@workspace_fields@@
};
Workspace workspace_layout(const Params& p) {
  Workspace w;
  auto take = [&w](size_t bytes) {
    const size_t at = w.total;
    w.total += (bytes + 255) / 256 * 256;
    return at;
  };
  if (kIsConv || kRoundTf32) w.a = take(static_cast<size_t>(p.a_elems) * sizeof(elem_t));
  if (kRoundTf32) w.b = take(static_cast<size_t>(p.b_elems) * sizeof(elem_t));
  @@workspace_partials@@
  return w;
}

constexpr size_t kSharedBytes = sizeof(Ring) + 1024;

}  // namespace

extern "C" size_t vxsynth_candidate_workspace_bytes(const vxsynth_problem* problem) {
  Params p;
  if (!make_params(problem, &p)) return 0;
  return workspace_layout(p).total;
}

extern "C" int vxsynth_candidate_launch(const vxsynth_problem* problem, const vxsynth_buffers* buffers,
                                        cudaStream_t stream) {
  Params p;
  if (!make_params(problem, &p)) return VXSYNTH_LAUNCH_UNSUPPORTED;
  const Workspace w = workspace_layout(p);
  if (w.total > 0 && (buffers->workspace == nullptr || buffers->workspace_bytes < w.total)) return 2;
  unsigned char* scratch = static_cast<unsigned char*>(buffers->workspace);
  @@partials_pointer@@
  const void* a = buffers->a;
  const void* b = buffers->b;
  if (kIsConv) {
    elem_t* cols = reinterpret_cast<elem_t*>(scratch + w.a);
    im2col<<<static_cast<unsigned>((p.a_elems + 255) / 256), 256, 0, stream>>>(p, static_cast<const elem_t*>(buffers->a), cols);
    a = cols;
  } else if (kRoundTf32) {
    elem_t* copy = reinterpret_cast<elem_t*>(scratch + w.a);
    round_copy<<<static_cast<unsigned>((p.a_elems + 255) / 256), 256, 0, stream>>>(static_cast<const elem_t*>(buffers->a), copy, p.a_elems);
    a = copy;
  }
  if (kRoundTf32) {
    elem_t* copy = reinterpret_cast<elem_t*>(scratch + w.b);
    round_copy<<<static_cast<unsigned>((p.b_elems + 255) / 256), 256, 0, stream>>>(static_cast<const elem_t*>(buffers->b), copy, p.b_elems);
    b = copy;
  }
  CUtensorMap map_a, map_b;
  if (!make_map(&map_a, a, p.M, p.K, p.batch, p.a_stride, @@box_a@@) || !make_map(&map_b, b, p.N, p.K, p.batch, p.b_stride, @@box_b@@))
    return VXSYNTH_LAUNCH_UNSUPPORTED;
  if (cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSharedBytes)) != cudaSuccess)
    return 3;
  CUtensorMap map_out{};
  if (kStoreTma && !make_out_map(&map_out, @@out_map_base@@, p)) return VXSYNTH_LAUNCH_UNSUPPORTED;
  @@bias_map@@
  // The grid walks (x, y) = (N tiles, M tiles), or (M tiles, N tiles) with kRasterM, rounded up to
  // whole clusters (the extra blocks return at once).
  const unsigned tiles_n = static_cast<unsigned>((p.N + kBN - 1) / kBN), tiles_m = static_cast<unsigned>((p.M + kBM - 1) / kBM);
  const unsigned cx = kRasterM ? kClusterM : kClusterN, cy = kRasterM ? kClusterN : kClusterM;
  const unsigned gx = ((kRasterM ? tiles_m : tiles_n) + cx - 1) / cx * cx, gy = ((kRasterM ? tiles_n : tiles_m) + cy - 1) / cy * cy;
  if (gy > 65535u) return VXSYNTH_LAUNCH_UNSUPPORTED;
  @@grid@@
  const elem_t* bias = static_cast<const elem_t*>(buffers->bias);
  elem_t* out = static_cast<elem_t*>(buffers->out);
  if (cx * cy > 1) {
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = kSharedBytes;
    config.stream = stream;
    cudaLaunchAttribute cluster[1];
    cluster[0].id = cudaLaunchAttributeClusterDimension;
    cluster[0].val.clusterDim.x = cx;
    cluster[0].val.clusterDim.y = cy;
    cluster[0].val.clusterDim.z = 1;
    config.attrs = cluster;
    config.numAttrs = 1;
    if (cudaLaunchKernelEx(&config, gemm, map_a, map_b, map_out,@@bias_map_arg@@ p, bias, out) != cudaSuccess) return 4;
  } else {
    gemm<<<grid, kThreads, kSharedBytes, stream>>>(map_a, map_b, map_out,@@bias_map_arg@@ p, bias, out);
  }
  @@reduce_launch@@
  return cudaGetLastError() == cudaSuccess ? VXSYNTH_LAUNCH_OK : 4;
}
)cu";

// The pieces of kBody that depend on bias_load. A marker alone on its line is replaced by whole
// lines (none for the global path, so those designs keep the text they were profiled with); a
// marker inside a line by text.
// bias_load paired: each thread reads its accumulator columns' pair (2j, 2j + 1) with one load
// that bypasses L1 (ld.global.cg), as cuBLAS's nvjet kernels read their bias (the H200 shows them
// at L1 hit 0 % and half of each sector's bytes used: 16 of 32 for four bf16 pairs); `e` picks
// the column, zero beyond N.
std::string bias_pair_function(const char* pair_type) {
  return std::string("using pair_t = ") + pair_type + ";  // two bias elements in one load\n" +
         "__device__ __forceinline__ float bias_pair(const elem_t* __restrict__ bias, long long c0, long long n, int e) {\n"
         "  if (c0 + 1 < n) {\n"
         "    const pair_t v = __ldcg(reinterpret_cast<const pair_t*>(bias + c0));\n"
         "    return to_float(e ? v.y : v.x);\n"
         "  }\n"
         "  return c0 + e < n ? to_float(__ldcg(bias + c0 + e)) : 0.f;\n"
         "}\n";
}

std::map<std::string, std::string> bias_pieces(design::BiasLoad load, const char* pair_type) {  // validity ties tma/paired to a bias (hopper-bias)
  if (load != design::BiasLoad::kTma) {
    std::map<std::string, std::string> global = {
        {"ring_bias", ""},
        {"tma_load_1d", ""},
        {"bias_map_param", ""},
        {"bias_bar_init", ""},
        {"bias_copy", ""},
        {"bias_wait", ""},
        {"bias_add_tile", "          if (kHasBias) v += n0 + col < p.N ? to_float(bias[n0 + col]) : 0.f;\n"},
        {"bias_add_direct", "        if (kHasBias) v += to_float(bias[col]);\n"},
        {"make_bias_map", ""},
        {"bias_map", ""},
        {"bias_map_arg", ""}};
    if (load == design::BiasLoad::kPaired) {  // the same, read by pairs through bias_pair (in tma_load_1d's slot)
      global["tma_load_1d"] = bias_pair_function(pair_type);
      global["bias_add_tile"] = "          v += bias_pair(bias, n0 + col - e, p.N, e);\n";
      global["bias_add_direct"] = "        v += bias_pair(bias, col - e, p.N, e);\n";
    }
    return global;
  }
  return {
      {"ring_bias", "  alignas(128) elem_t bias[kBN];  // the block's bias slice (bias_load tma)\n"
                    "  unsigned long long bias_full;\n"},
      {"tma_load_1d",
       "__device__ __forceinline__ void tma_load_1d(void* dst, const CUtensorMap* map, unsigned long long* bar, int x) {\n"
       "  asm volatile(\"cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];\"\n"
       "               ::\"r\"(smem_addr(dst)), \"l\"(map), \"r\"(smem_addr(bar)), \"r\"(x) : \"memory\");\n"
       "}\n"},
      {"bias_map_param", " const __grid_constant__ CUtensorMap map_bias,"},
      {"bias_bar_init", "    bar_init(&s.bias_full, 1);\n"},
      {"bias_copy", "      // the bias slice first (the copy engine fills zeros beyond N); the epilogue waits for it\n"
                    "      bar_expect(&s.bias_full, kBN * sizeof(elem_t));\n"
                    "      tma_load_1d(s.bias, &map_bias, &s.bias_full, n0);\n"},
      {"bias_wait", "  bar_wait(&s.bias_full, 0);\n"},
      {"bias_add_tile", "          v += to_float(s.bias[col]);\n"},
      {"bias_add_direct", "        v += to_float(s.bias[col - n0]);\n"},
      {"make_bias_map",
       "// The bias [N] as a one-dimensional map, one kBN box per block; the copy engine fills zeros beyond N.\n"
       "bool make_bias_map(CUtensorMap* map, const void* base, const Params& p) {\n"
       "  auto encode = encode_tiled();\n"
       "  if (encode == nullptr || base == nullptr || reinterpret_cast<size_t>(base) % 16 != 0) return false;\n"
       "  const cuuint64_t dims[1] = {static_cast<cuuint64_t>(p.N)};\n"
       "  const cuuint64_t strides[1] = {0};  // a rank-1 map has no stride\n"
       "  const cuuint32_t box[1] = {static_cast<cuuint32_t>(kBN)};\n"
       "  const cuuint32_t unit[1] = {1};\n"
       "  return encode(map, kMapType, 1, const_cast<void*>(base), dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,\n"
       "                CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;\n"
       "}\n"},
      {"bias_map", "  CUtensorMap map_bias{};\n"
                   "  if (!make_bias_map(&map_bias, buffers->bias, p)) return VXSYNTH_LAUNCH_UNSUPPORTED;\n"},
      {"bias_map_arg", " map_bias,"},
  };
}

// Designs whose later axes leave their defaults (split_k > 1, register_split setmaxnreg,
// wgmma_in_flight 2, schedule persistent, epilogue_store tma_swizzled, consumer_layout columns) take the general kernel below; the others keep
// kGemmGrid's text (their profiled sources regenerate byte for byte).
bool later_axes(const DesignPoint& d) {
  return d.split_k != 1 || d.register_split != design::RegisterSplit::kNone || d.wgmma_in_flight != 1 ||
         d.schedule != design::Schedule::kGrid || d.tf32_round != design::Tf32Round::kWorkspace ||
         d.epilogue_store == design::EpilogueStore::kTmaSwizzled || design::hopper_columns(d) ||
         d.multicast != design::Multicast::kNone;
}

// The bulk-store epilogue (epilogue_store tma or tma_swizzled), to the end of the kernel: the
// warpgroup's 64 x kBN tile staged in shared memory (the A ring under the grid schedule, a
// buffer of its own when persistent), then stored by the copy engine.
// - tma: one dense 64 x kBN box, one bulk copy; thread 0 waits for it to have read the tile.
// - tma_swizzled: kBN / kBoxCols boxes of 64 rows x 128 bytes in the layout of the copy engine's
//   SWIZZLE_128B (a row's 16-byte chunk j sits at chunk j ^ (row % 8)), so the eight rows a
//   warp's store touches fall in eight different bank groups instead of one (an unswizzled
//   64 x 256 bf16 tile has 512-byte rows: 8-way conflicts on every store); one bulk copy per
//   box. Persistent: the wait for the previous tile's copies comes just before the buffer is
//   rewritten, so the copies overlap the next tile's mainloop, and once more before the exit.
// The tma text is the one its designs were profiled with, byte for byte.
// - consumer_layout columns: the same per consumer on its 64 x kCN part (columns n0 + kCN c ..),
//   staged at c * 64 * kCN, stored at (n0 + kCN c, m0); its bias columns are kCN c + col.
std::string staged_epilogue(bool persistent, bool swizzled, design::BiasLoad load, bool has_bias, bool columns) {
  const bool bias_tma = load == design::BiasLoad::kTma;
  // The consumer's part: its width (kBN, or kCN for columns) and where its rows and columns start.
  const std::string width = columns ? "kCN" : "kBN";
  const std::string part = "c * 64 * " + width;
  const std::string row0 = columns ? "m0" : "m0 + c * 64";
  const std::string col0 = columns ? "n0 + c * kCN" : "n0";
  const std::string tcol = columns ? "c * kCN + col" : "col";  // the column within the block tile
  std::ostringstream s;
  if (persistent && swizzled) {
    s << "      // the previous tile's bulk copies have read this buffer before it is written again\n"
         "      if (t == 0) asm volatile(\"cp.async.bulk.wait_group.read 0;\" ::: \"memory\");\n"
         "      asm volatile(\"bar.sync %0, 128;\" ::\"r\"(2 + c) : \"memory\");\n"
         "      elem_t* tile = s.epi + " << part << ";\n";
  } else if (persistent) {
    s << "      // the previous tile's bulk store has read this buffer (thread 0 waited) before it is written again\n"
         "      asm volatile(\"bar.sync %0, 128;\" ::\"r\"(2 + c) : \"memory\");\n"
         "      elem_t* tile = s.epi + " << part << ";\n";
  } else {
    s << "      // every consumer is past the mainloop before the ring is reused (named barrier 1, consumers only)\n"
         "      asm volatile(\"bar.sync 1, %0;\" ::\"n\"(128 * kConsumers) : \"memory\");\n"
         "      elem_t* tile = reinterpret_cast<elem_t*>(&s.a[0][0]) + " << part << ";\n";
  }
  s << "#pragma unroll\n      for (int j = 0; j < " << width << " / 8; ++j) {" << R"cu(
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int row = warp * 16 + lane / 4 + 8 * h;
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int col = 8 * j + 2 * (lane % 4) + e;
            float v = acc[4 * j + 2 * h + e];
)cu";
  if (bias_tma) {
    s << "            v += to_float(s.bias[" << tcol << "]);\n";
  } else if (has_bias && load == design::BiasLoad::kPaired) {
    s << "            v += bias_pair(bias, n0 + " << tcol << " - e, p.N, e);\n";
  } else if (has_bias) {
    s << "            v += n0 + " << tcol << " < p.N ? to_float(bias[n0 + " << tcol << "]) : 0.f;\n";
  }
  if (swizzled) {
    s << "            const int box = col / kBoxCols, byte = (col % kBoxCols) * static_cast<int>(sizeof(elem_t));\n"
         "            const int chunk = (byte >> 4) ^ (row & 7);\n"
         "            tile[box * 64 * kBoxCols + row * kBoxCols + ((chunk << 4) | (byte & 15)) / static_cast<int>(sizeof(elem_t))] = from_float(v);\n";
  } else {
    s << "            tile[row * " << width << " + col] = from_float(v);\n";
  }
  s << R"cu(          }
        }
      }
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // ordinary stores -> the copy engine
      asm volatile("bar.sync %0, 128;" ::"r"(2 + c) : "memory");
      if (t == 0) {
)cu";
  if (swizzled) {
    s << "#pragma unroll\n        for (int b = 0; b < " << width << " / kBoxCols; ++b) {\n"
      << R"cu(          asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];"
                       ::"l"(&map_out), "r"(smem_addr(tile + b * 64 * kBoxCols)), "r"()cu"
      << col0 << " + b * kBoxCols), \"r\"(" << row0 << R"cu(), "r"(z)
                       : "memory");
        }
)cu";
  } else {
    s << "        asm volatile(\"cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\"\n"
         "                     ::\"l\"(&map_out), \"r\"(smem_addr(tile)), \"r\"(" << col0 << "), \"r\"(" << row0
      << "), \"r\"(z) : \"memory\");\n";
  }
  s << "        asm volatile(\"cp.async.bulk.commit_group;\" ::: \"memory\");\n";
  if (!(persistent && swizzled)) s << "        asm volatile(\"cp.async.bulk.wait_group.read 0;\" ::: \"memory\");\n";
  s << "      }\n    }\n";
  if (persistent && swizzled) {
    s << "    // the last tile's copies must have read shared memory before the block exits\n"
         "    if (t == 0) asm volatile(\"cp.async.bulk.wait_group.read 0;\" ::: \"memory\");\n";
  }
  s << "  }\n}\n";
  return s.str();
}

// split_k > 1 with a bulk-store epilogue (fp32 storage, grid schedule; validity): the warpgroup's
// 64 x kBN fp32 partial sums go to the workspace [batch x kSplitK][M][N] one box of 64 rows x 128
// bytes (kBoxCols columns) at a time, staged in the warpgroup's share of the A ring (dense, or
// in tma_swizzled's 128-byte swizzle); thread 0 copies the box and waits until the copy has read
// it before the next box is written. The threads issue no global store, so L1 sees no traffic
// (direct partial stores show L1 hit rates of 50-90 %, cuDNN's kernels 0).
// consumer_layout columns: the consumer's kCN columns (n0 + kCN c ..) in kCN / kBoxCols boxes at
// rows m0 (validity: kCN a multiple of kBoxCols, a 64-row box per consumer within the A ring).
std::string partials_epilogue(bool swizzled, design::BiasLoad load, bool has_bias, bool columns) {
  const bool bias_tma = load == design::BiasLoad::kTma;
  const std::string width = columns ? "kCN" : "kBN";
  const std::string row0 = columns ? "m0" : "m0 + c * 64";
  const std::string tcol = columns ? "c * kCN + b * kBoxCols + bc" : "b * kBoxCols + bc";  // the column within the block tile
  std::ostringstream s;
  s << "      // every consumer is past the mainloop before the ring is reused (named barrier 1, consumers only)\n"
       "      asm volatile(\"bar.sync 1, %0;\" ::\"n\"(128 * kConsumers) : \"memory\");\n"
       "      float* box_tile = reinterpret_cast<float*>(&s.a[0][0]) + c * 64 * kBoxCols;\n";
  s << "#pragma unroll\n      for (int b = 0; b < " << width << " / kBoxCols; ++b) {" << R"cu(  // unrolled: the accumulators stay in registers
#pragma unroll
        for (int j = 0; j < kBoxCols / 8; ++j) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int row = warp * 16 + lane / 4 + 8 * h;
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const int bc = 8 * j + 2 * (lane % 4) + e;
              float v = acc[4 * (b * kBoxCols / 8 + j) + 2 * h + e];
)cu";
  if (bias_tma) {
    s << "              if (w.slice == 0) v += to_float(s.bias[" << tcol << "]);  // the bias once, in the first slice's partial\n";
  } else if (has_bias && load == design::BiasLoad::kPaired) {
    s << "              if (w.slice == 0) v += bias_pair(bias, n0 + " << tcol << " - e, p.N, e);  // the bias once, in the first slice's partial\n";
  } else if (has_bias) {
    s << "              if (w.slice == 0) v += n0 + " << tcol << " < p.N ? to_float(bias[n0 + " << tcol << "]) : 0.f;  // the bias once, in the first slice's partial\n";
  }
  if (swizzled) {
    s << "              const int chunk = ((bc * 4) >> 4) ^ (row & 7);\n"
         "              box_tile[row * kBoxCols + ((chunk << 4) | ((bc * 4) & 15)) / 4] = v;\n";
  } else {
    s << "              box_tile[row * kBoxCols + bc] = v;\n";
  }
  s << R"cu(            }
          }
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // ordinary stores -> the copy engine
        asm volatile("bar.sync %0, 128;" ::"r"(2 + c) : "memory");
        if (t == 0) {
          asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];"
                       ::"l"(&map_out), "r"(smem_addr(box_tile)), "r"()cu"
    << (columns ? "n0 + c * kCN + b * kBoxCols" : "n0 + b * kBoxCols") << "), \"r\"(" << row0 << R"cu(), "r"(z * kSplitK + w.slice)
                       : "memory");
          asm volatile("cp.async.bulk.commit_group;" ::: "memory");
          asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        }
        asm volatile("bar.sync %0, 128;" ::"r"(2 + c) : "memory");  // the box is read: the next one may be written
      }
    }
  }
}
)cu";
  return s.str();
}

// The general GEMM kernel: one loop over the block's work (one tile under the grid schedule,
// every gridDim.x-th tile when persistent), each tile a K slice; the ring position runs on over
// the tiles, so the producer fills the next tile's stages while the consumers finish this one.
std::string general_gemm(const DesignPoint& d) {
  const bool bias_tma = d.bias_load == design::BiasLoad::kTma;
  const bool has_bias = d.op.has_bias();
  const bool store_tma = design::is_bulk_store(d.epilogue_store);
  const bool swizzled = d.epilogue_store == design::EpilogueStore::kTmaSwizzled;
  const bool persistent = d.schedule == design::Schedule::kPersistent;
  const bool split = d.split_k > 1;
  const bool setmaxnreg = d.register_split == design::RegisterSplit::kSetMaxNReg;
  const bool round_shared = d.tf32_round == design::Tf32Round::kShared;
  const bool conv = d.op.kind == ops::OpKind::conv1d || d.op.kind == ops::OpKind::conv2d;
  const bool columns = design::hopper_columns(d);
  // consumer_layout columns: every consumer multiplies the one 64-row A slice by its kCN rows of
  // the B tile (B rows c kCN .., 1024 bytes per 8 rows, so each part starts on a swizzle atom)
  // and owns tile columns c kCN ..; rows: consumer c multiplies A rows 64c .. by the whole B tile.
  const std::string acc_n = columns ? "kCN" : "kBN";
  std::ostringstream s;
  s << R"cu(// One unit of work: an output tile's M and N offsets, its batch index and its K slice.
struct Work {
  int m0, n0, z, slice;
};

// Work `i` of the tiles_m x tiles_n x (batch x kSplitK) a persistent block walks; with kRasterM
// consecutive tiles walk M first (they share one B tile in L2).
__device__ __forceinline__ Work work_at(long long i, int tiles_m, int tiles_n) {
  const long long per_z = static_cast<long long>(tiles_m) * tiles_n;
  const int zs = static_cast<int>(i / per_z), r = static_cast<int>(i % per_z);
  const int mi = kRasterM ? r % tiles_m : r / tiles_n, ni = kRasterM ? r / tiles_m : r % tiles_n;
  return {mi * kBM, ni * kBN, zs / kSplitK, zs % kSplitK};
}

// Under the grid schedule: the block's own tile, blockIdx.z = (batch, K slice).
__device__ __forceinline__ Work work_of_block() {
  const int mi = kRasterM ? blockIdx.x : blockIdx.y, ni = kRasterM ? blockIdx.y : blockIdx.x;
  return {mi * kBM, ni * kBN, static_cast<int>(blockIdx.z) / kSplitK, static_cast<int>(blockIdx.z) % kSplitK};
}

// The first k-tile of a K slice: the slices cut the k-tiles evenly (slice kSplitK ends at ktiles).
__device__ __forceinline__ int slice_begin(int ktiles, int slice) {
  return static_cast<int>(static_cast<long long>(ktiles) * slice / kSplitK);
}
@@multicast_helpers@@

__global__ void __launch_bounds__(kThreads, 1)
gemm(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
     const __grid_constant__ CUtensorMap map_out,@@bias_map_param@@ const Params p,
     const elem_t* __restrict__ bias, elem_t* __restrict__ out) {
  extern __shared__ unsigned char raw[];
  Ring& s = *reinterpret_cast<Ring*>((reinterpret_cast<size_t>(raw) + 1023) & ~size_t(1023));
  const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
  const int ktiles = static_cast<int>((p.K + kBK - 1) / kBK);
  const int tiles_m = static_cast<int>((p.M + kBM - 1) / kBM), tiles_n = static_cast<int>((p.N + kBN - 1) / kBN);
  // This block's work: its own tile (grid), or every gridDim.x-th one from blockIdx.x (persistent).
  const long long first = kPersistent ? blockIdx.x : 0, step = kPersistent ? gridDim.x : 1;
  const long long count = kPersistent ? static_cast<long long>(tiles_m) * tiles_n * p.batch * kSplitK : 1;
  @@beyond_tiles@@
  if (threadIdx.x == 0) {
    for (int i = 0; i < kStages; ++i) {
      bar_init(&s.full[i], 1);
      bar_init(&s.empty[i], kConsumers@@empty_arrivals@@);
    }
    @@bias_bar_init@@
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  @@block_sync@@
  if (wg == 0) {  // producer: one thread keeps the ring full
)cu";
  if (setmaxnreg) {
    s << "    // register_split setmaxnreg: the producer only issues copies and gives its registers to the consumers\n"
         "    asm volatile(\"setmaxnreg.dec.sync.aligned.u32 %0;\" ::\"n\"(kProducerRegs));\n";
  }
  s << R"cu(    if (t == 0) {
      int it = 0;  // k-tiles loaded so far over all of this block's work: the ring position
      for (long long i = first; i < count; i += step) {
        const Work w = kPersistent ? work_at(i, tiles_m, tiles_n) : work_of_block();
        const int za = p.a_stride == 0 ? 0 : w.z, zb = p.b_stride == 0 ? 0 : w.z;
)cu";
  if (bias_tma) {
    s << "        // the bias slice first (the copy engine fills zeros beyond N); the epilogue waits for it\n"
         "        bar_expect(&s.bias_full, kBN * sizeof(elem_t));\n"
         "        tma_load_1d(s.bias, &map_bias, &s.bias_full, w.n0);\n";
  }
  s << R"cu(        const int kb = slice_begin(ktiles, w.slice), ke = slice_begin(ktiles, w.slice + 1);
        for (int kt = kb; kt < ke; ++kt, ++it) {
          const int st = it % kStages;
          if (it >= kStages) bar_wait(&s.empty[st], ((it / kStages) - 1) & 1);
          bar_expect(&s.full[st], (kBM + kBN) * kBK * sizeof(elem_t));
          @@producer_loads@@
        }
      }
      @@producer_tail@@
    }
  } else {  // consumers: warpgroup c computes )cu" << (columns ? "columns kCN c .. kCN c + kCN - 1 (all 64 rows)" : "rows 64c .. 64c + 63")
    << R"cu( of each tile
)cu";
  if (setmaxnreg) {
    s << "    asm volatile(\"setmaxnreg.inc.sync.aligned.u32 %0;\" ::\"n\"(kConsumerRegs));\n";
  }
  s << R"cu(    const int c = wg - 1;
    const int warp = t / 32, lane = t % 32;
    int it = 0;  // k-tiles consumed so far: the producer's ring positions, in the same order
    for (long long i = first; i < count; i += step) {
      const Work w = kPersistent ? work_at(i, tiles_m, tiles_n) : work_of_block();
      const int m0 = w.m0, n0 = w.n0, z = w.z;
      const int kb = slice_begin(ktiles, w.slice), ke = slice_begin(ktiles, w.slice + 1);
      float acc[)cu" << acc_n << R"cu( / 2];
#pragma unroll
      for (int j = 0; j < )cu" << acc_n << R"cu( / 2; ++j) acc[j] = 0.f;
      for (int kt = kb; kt < ke; ++kt, ++it) {
        const int st = it % kStages;
        bar_wait(&s.full[st], (it / kStages) & 1);
)cu";
  if (round_shared) {
    // Element-wise, so the 128-byte swizzle does not matter; every element is rounded once.
    s << "        // tf32_round shared: the stage's operands rounded to nearest in place (wgmma would drop their low 13\n"
         "        // bits), shared among the consumer threads; the fence hands the writes to wgmma's (async) proxy\n";
    const std::vector<std::pair<const char*, const char*>> tiles =
        conv ? std::vector<std::pair<const char*, const char*>>{{"s.b[st]", "kBN"}}  // im2col rounded A
             : std::vector<std::pair<const char*, const char*>>{{"s.a[st]", "kBM"}, {"s.b[st]", "kBN"}};
    for (const auto& [tile, rows] : tiles) {
      s << "        for (int e = threadIdx.x - 128; e < " << rows << " * kBK / 4; e += 128 * kConsumers) {\n"
        << "          float4 v = reinterpret_cast<float4*>(" << tile << ")[e];\n"
        << "          v.x = operand(v.x), v.y = operand(v.y), v.z = operand(v.z), v.w = operand(v.w);\n"
        << "          reinterpret_cast<float4*>(" << tile << ")[e] = v;\n"
        << "        }\n";
    }
    s << "        asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
         "        asm volatile(\"bar.sync 1, %0;\" ::\"n\"(128 * kConsumers) : \"memory\");\n";
  }
  s << R"cu(        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int kk = 0; kk < kBK / kKStep; ++kk) {  // each k-step is 32 bytes of a 128-byte row
          wgmma_tile(acc, tile_desc()cu"
    << (columns ? "&s.a[st][0]) + 2 * kk, tile_desc(&s.b[st][c * kCN * kBK]) + 2 * kk);"
                : "&s.a[st][c * 64 * kBK]) + 2 * kk, tile_desc(&s.b[st][0]) + 2 * kk);")
    << R"cu(
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        // kInFlight groups keep running; the group kInFlight k-tiles back has completed, so its stage is free
        asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kInFlight) : "memory");
        if (t == 0 && kt - kb >= kInFlight) @@release@@(&s.empty[(it - kInFlight) % kStages]@@release_peers@@);
      }
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
      // the stages of the last groups are free too (every stage is released once per use, which
      // keeps the ring's phases right for the next tile)
      if (t == 0) {
        for (int j = ke - kInFlight > kb ? ke - kInFlight : kb; j < ke; ++j) @@release@@(&s.empty[(it - (ke - j)) % kStages]@@release_peers@@);
      }
)cu";
  if (bias_tma) s << "      bar_wait(&s.bias_full, 0);\n";
  if (design::bulk_stores_partials(d)) {
    s << partials_epilogue(swizzled, d.bias_load, has_bias, columns);
    return s.str();
  }
  if (store_tma) {
    s << staged_epilogue(persistent, swizzled, d.bias_load, has_bias, columns);
    return s.str();
  }
  // Direct epilogue: accumulator (warp w, lane l): acc[4j + 2h + e] -> row 16w + l/4 + 8h, col 8j + 2(l%4) + e.
  s << "#pragma unroll\n      for (int j = 0; j < " << acc_n << R"cu( / 8; ++j) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const long long row = m0 + )cu" << (columns ? "" : "c * 64 + ") << R"cu(warp * 16 + lane / 4 + 8 * h;
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const long long col = n0 + )cu" << (columns ? "c * kCN + " : "") << R"cu(8 * j + 2 * (lane % 4) + e;
            if (row >= p.M || col >= p.N) continue;
            float v = acc[4 * j + 2 * h + e];
)cu";
  const std::string add_bias = bias_tma ? "v += to_float(s.bias[col - n0]);"
                               : d.bias_load == design::BiasLoad::kPaired ? "v += bias_pair(bias, col - e, p.N, e);"
                                                                            : "v += to_float(bias[col]);";
  if (split) {
    if (has_bias) s << "            if (w.slice == 0) " << add_bias << "  // the bias once, in the first slice's partial\n";
    s << "            // fp32 partial sums [batch][kSplitK][M][N]; reduce_split_k adds the slices in order\n"
         "            p.partials[((static_cast<long long>(z) * kSplitK + w.slice) * p.M + row) * p.N + col] = v;\n";
  } else {
    if (has_bias) s << "            " << add_bias << "\n";
    s << R"cu(            if (kIsConv) {  // row = (image, position), col = output channel
              const long long img = row / (p.p * p.q), pos = row % (p.p * p.q);
              out[(img * p.k_out + col) * p.p * p.q + pos] = from_float(v);
            } else {
              out[(static_cast<long long>(z) * p.M + row) * p.N + col] = from_float(v);
            }
)cu";
  }
  s << R"cu(          }
        }
      }
    }
  }
}
)cu";
  return s.str();
}

// The pieces of kHead and kTail that depend on the later axes: for a design that keeps their
// defaults every piece is the text it replaced (or nothing), so its source is unchanged.
std::map<std::string, std::string> later_pieces(const DesignPoint& d) {
  if (!later_axes(d)) {
    return {{"params_partials", ""},
            {"ring_epilogue", ""},
            {"reduce_kernel", ""},
            {"workspace_fields", "  size_t a = 0, b = 0, total = 0;\n"},
            {"workspace_partials", ""},
            {"partials_pointer", ""},
            {"grid", "  const dim3 grid(gx, gy, static_cast<unsigned>(p.batch));\n"},
            {"reduce_launch", ""}};
  }
  const bool split = d.split_k > 1;
  const bool swizzled = d.epilogue_store == design::EpilogueStore::kTmaSwizzled;
  const bool own_epilogue_tile =
      d.schedule == design::Schedule::kPersistent && design::is_bulk_store(d.epilogue_store);
  std::map<std::string, std::string> p;
  p["params_partials"] = "  float* partials;  // split_k > 1: fp32 partial sums [batch][kSplitK][M][N] in the workspace\n";
  const std::string epi_elems = design::hopper_columns(d) ? "kConsumers * 64 * kCN" : "kConsumers * 64 * kBN";
  p["ring_epilogue"] = !own_epilogue_tile ? ""
                       : swizzled       ? "  alignas(1024) elem_t epi[" + epi_elems + "];  // the bulk-store tile, swizzled boxes (the ring refills meanwhile)\n"
                                        : "  alignas(128) elem_t epi[" + epi_elems + "];  // the bulk-store tile (the ring refills meanwhile)\n";
  p["reduce_kernel"] =
      split ? "\n// split_k: the slices' fp32 partial sums added in slice order (slice 0 holds the bias) and rounded once.\n"
              "__global__ void reduce_split_k(const Params p, elem_t* __restrict__ out) {\n"
              "  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n"
              "  const long long mn = p.M * p.N;\n"
              "  if (idx >= p.batch * mn) return;\n"
              "  const long long z = idx / mn, rem = idx % mn, row = rem / p.N, col = rem % p.N;\n"
              "  const float* part = p.partials + z * kSplitK * mn + rem;\n"
              "  float v = 0.f;\n"
              "  for (int sl = 0; sl < kSplitK; ++sl) v += part[sl * mn];\n"
              "  if (kIsConv) {  // row = (image, position), col = output channel\n"
              "    const long long img = row / (p.p * p.q), pos = row % (p.p * p.q);\n"
              "    out[(img * p.k_out + col) * p.p * p.q + pos] = from_float(v);\n"
              "  } else {\n"
              "    out[idx] = from_float(v);\n"
              "  }\n"
              "}\n"
            : "";
  p["workspace_fields"] = "  size_t a = 0, b = 0, partials = 0, total = 0;\n";
  p["workspace_partials"] =
      split ? "  if (kSplitK > 1) w.partials = take(static_cast<size_t>(p.batch) * kSplitK * p.M * p.N * sizeof(float));\n" : "";
  p["partials_pointer"] = split ? "  p.partials = reinterpret_cast<float*>(scratch + w.partials);\n" : "";
  p["grid"] =
      "  // z = (batch, K slice); persistent: one block per SM (at most one per tile) walks the tiles\n"
      "  if (p.batch * kSplitK > 65535) return VXSYNTH_LAUNCH_UNSUPPORTED;\n"
      "  dim3 grid(gx, gy, static_cast<unsigned>(p.batch * kSplitK));\n"
      "  if (kPersistent) {\n"
      "    int device = 0, sms = 0;\n"
      "    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms <= 0)\n"
      "      return 3;\n"
      "    const long long tiles = static_cast<long long>(tiles_m) * tiles_n * p.batch * kSplitK;\n"
      "    grid = dim3(static_cast<unsigned>(tiles < sms ? tiles : sms), 1, 1);\n"
      "  }\n";
  p["reduce_launch"] =
      split ? "  if (kSplitK > 1 && cudaPeekAtLastError() == cudaSuccess) {  // peek: the return below reports a failed GEMM launch\n"
              "    const long long n = p.batch * p.M * p.N;\n"
              "    reduce_split_k<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(p, out);\n"
              "  }\n"
            : "";
  return p;
}

// The pieces of the general kernel that depend on multicast: without it, the text they replaced.
// With it, every block of a cluster takes part in the copies (also one the cluster shape added
// beyond the tiles: its copies are zero-filled and its stores clipped), the cluster's barriers
// are initialised before any block copies into another, the producer copies its slice of each
// shared tile to its whole group, a consumer releases a stage to every block it came from, and
// the producer waits for the last releases before its block may exit (peers still arrive on
// its barriers until then).
std::map<std::string, std::string> multicast_pieces(const DesignPoint& d) {
  const bool mc_a = design::multicast_a(d.multicast), mc_b = design::multicast_b(d.multicast);
  if (d.multicast == design::Multicast::kNone) {
    return {{"multicast_helpers", ""},
            {"beyond_tiles", "  if (!kPersistent) {\n"
                             "    const Work own = work_of_block();\n"
                             "    if (own.m0 >= p.M || own.n0 >= p.N) return;  // a block the cluster shape added beyond the tiles\n"
                             "  }\n"},
            {"empty_arrivals", ""},
            {"block_sync", "  __syncthreads();\n"},
            {"producer_loads", "          tma_load(s.a[st], &map_a, &s.full[st], kt * kBK, w.m0, za);\n"
                               "          tma_load(s.b[st], &map_b, &s.full[st], kt * kBK, w.n0, zb);\n"},
            {"producer_tail", ""},
            {"release", "bar_arrive"},
            {"release_peers", ""}};
  }
  std::map<std::string, std::string> p;
  p["multicast_helpers"] = R"cu(
// multicast: the block's place in its cluster (along M and N) and the blocks it shares tiles with.
__device__ __forceinline__ int cluster_rank_of(int pm, int pn) { return kRasterM ? pm + pn * kClusterM : pn + pm * kClusterN; }
struct ClusterPlace {
  int pm, pn;       // the block's place along M and N in its cluster
  unsigned mask_a;  // the blocks of its cluster row (the same M tile): they share A
  unsigned mask_b;  // the blocks of its cluster column (the same N tile): they share B
  unsigned peers;   // the blocks whose copies fill this block's stages (and the other way round), itself included
};
__device__ __forceinline__ ClusterPlace cluster_place() {
  unsigned x, y;
  asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(x));
  asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(y));
  ClusterPlace c;
  c.pm = static_cast<int>(kRasterM ? x : y);
  c.pn = static_cast<int>(kRasterM ? y : x);
  c.mask_a = 0;
  c.mask_b = 0;
  for (int j = 0; j < kClusterN; ++j) c.mask_a |= 1u << cluster_rank_of(c.pm, j);
  for (int i = 0; i < kClusterM; ++i) c.mask_b |= 1u << cluster_rank_of(i, c.pn);
  const unsigned self = 1u << cluster_rank_of(c.pm, c.pn);
  c.peers = (kMulticastA ? c.mask_a : self) | (kMulticastB ? c.mask_b : self);
  return c;
}
// One copy of box (k, row, z) to the same shared-memory offset in every block of `mask`; each
// block's barrier at `bar`'s offset counts the bytes.
__device__ __forceinline__ void tma_load_multicast(void* dst, const CUtensorMap* map, unsigned long long* bar, int k, int row,
                                                   int z, unsigned mask) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4, %5}], [%2], %6;"
               ::"r"(smem_addr(dst)), "l"(map), "r"(smem_addr(bar)), "r"(k), "r"(row), "r"(z), "h"(static_cast<unsigned short>(mask))
               : "memory");
}
// A stage is released to every block whose copies filled it: one arrival on that block's barrier.
// The arrival keeps mbarrier.arrive's default (release at CTA scope): the stage was read by wgmma,
// complete at wgmma.wait_group, so no memory access of this thread needs ordering for the other
// block. `.release.cluster` compiles to MEMBAR.ALL.GPU before each arrival and made the H200
// kernels 2.2-2.5x slower (pi0-4: 18.8 against 8.2 us; docs/measurements, session 23).
__device__ __forceinline__ void release_to(unsigned long long* b, unsigned peers) {
  for (int r = 0; r < kClusterM * kClusterN; ++r) {
    if (peers & (1u << r)) {
      asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\nmbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n"
                   ::"r"(smem_addr(b)), "r"(r) : "memory");
    }
  }
}
)cu";
  p["beyond_tiles"] =
      "  // multicast: every block of the cluster takes part in the copies, also one beyond the tiles\n"
      "  // (its copies are zero-filled, its stores clipped)\n"
      "  const ClusterPlace place = cluster_place();\n";
  p["empty_arrivals"] = " * __popc(place.peers)";
  p["block_sync"] =
      "  __syncthreads();\n"
      "  // every block's barriers are initialised before any block of the cluster copies into another\n"
      "  asm volatile(\"barrier.cluster.arrive.release.aligned;\\nbarrier.cluster.wait.acquire.aligned;\" ::: \"memory\");\n";
  std::string loads;
  if (mc_a) {
    loads += "          // multicast a: this block's kSliceA rows of the A tile, for its cluster row\n"
             "          tma_load_multicast(&s.a[st][place.pn * kSliceA * kBK], &map_a, &s.full[st], kt * kBK, w.m0 + place.pn * kSliceA, za,\n"
             "                             place.mask_a);\n";
  } else {
    loads += "          tma_load(s.a[st], &map_a, &s.full[st], kt * kBK, w.m0, za);\n";
  }
  if (mc_b) {
    loads += "          // multicast b: this block's kSliceB rows of the B tile, for its cluster column\n"
             "          tma_load_multicast(&s.b[st][place.pm * kSliceB * kBK], &map_b, &s.full[st], kt * kBK, w.n0 + place.pm * kSliceB, zb,\n"
             "                             place.mask_b);\n";
  } else {
    loads += "          tma_load(s.b[st], &map_b, &s.full[st], kt * kBK, w.n0, zb);\n";
  }
  p["producer_loads"] = loads;
  p["producer_tail"] =
      "      // multicast: the block stays until every block it delivered to has released its last stages\n"
      "      for (int u = it > kStages ? it - kStages : 0; u < it; ++u) bar_wait(&s.empty[u % kStages], (u / kStages) & 1);\n";
  p["release"] = "release_to";
  p["release_peers"] = ", place.peers";
  return p;
}

// kBody with its markers replaced; every marker must be known and every piece used.
std::string fill_markers(std::string body, const std::map<std::string, std::string>& pieces) {
  std::set<std::string> used;
  for (std::size_t at = body.find("@@"); at != std::string::npos; at = body.find("@@", at)) {
    const std::size_t end = body.find("@@", at + 2);
    if (end == std::string::npos) throw std::logic_error("hopper emitter: unterminated marker");
    const std::string name = body.substr(at + 2, end - at - 2);
    const auto it = pieces.find(name);
    if (it == pieces.end()) throw std::logic_error("hopper emitter: no piece for marker " + name);
    used.insert(name);
    const std::size_t line_start = body.rfind('\n', at) + 1;  // npos + 1 = 0 on the first line
    const std::size_t line_end = body.find('\n', end);
    const bool alone = body.find_first_not_of(' ', line_start) == at && line_end == end + 2;
    if (alone) {
      body.replace(line_start, line_end + 1 - line_start, it->second);
      at = line_start + it->second.size();
    } else {
      body.replace(at, end + 2 - at, it->second);
      at += it->second.size();
    }
  }
  for (const auto& [name, text] : pieces) {
    if (!used.count(name)) throw std::logic_error("hopper emitter: piece " + name + " has no marker");
  }
  return body;
}

}  // namespace

std::string emit_hopper_cuda(const DesignPoint& d) {
  design::require_valid(d, "design " + design::procedural_name(d));
  const ops::PrecisionPath prec = d.fixed.precision;
  const bool tf32 = prec == ops::PrecisionPath::tf32;
  const bool conv = d.op.kind == ops::OpKind::conv1d || d.op.kind == ops::OpKind::conv2d;
  const ops::DType dtype = ops::storage_dtype(prec);
  const ops::GemmView v = d.op.gemm_view();
  std::ostringstream s;
  s << "// vxsynth-target: sm_90a\n";
  s << "// Generated by vxsynth's generator " << kGeneratorVersion << " from design\n//   " << design::procedural_name(d) << "\n";
  s << "// Do not edit: change the design (design.json) and regenerate.\n//\n";
  s << "// Serves reference: " << (d.reference.empty() ? std::string("(none: a seed from op parameters)") : d.reference) << "\n";
  s << "// Op: " << ops::to_string(d.op.kind) << " \"" << d.op.name << "\", precision " << ops::to_string(prec)
    << ", GEMM view batch " << v.batch << " x M " << v.m << " x N " << v.n << " x K " << v.k
    << (d.op.has_bias() ? ", bias" : "") << "\n";
  s << "// Hopper family (docs/design-space.md): 1 producer + " << design::hopper_consumers(d)
    << " consumer warpgroups (block " << d.fixed.block_size << "), tile " << d.tile.m << "x" << d.tile.n << "x" << d.tile.k
    << ", " << d.stages << " TMA stages, raster " << design::to_string(d.raster) << ", epilogue store "
    << design::to_string(d.epilogue_store) << (d.bias_load == design::BiasLoad::kTma      ? ", bias by bulk copy"
                                                : d.bias_load == design::BiasLoad::kPaired ? ", bias by pair loads past L1"
                                                                                          : "") << ", cluster " << d.cluster.m << "x" << d.cluster.n << ", "
    << design::to_string(d.fragment) << (conv ? "; convolution as im2col + GEMM" : "")
    << (!tf32                                              ? ""
        : d.tf32_round == design::Tf32Round::kShared ? "; tf32 operands rounded to nearest in shared memory"
                                                     : "; tf32 operands rounded to nearest before the copies")
    << ".\n";
  if (later_axes(d)) {
    s << "// split_k " << d.split_k
      << (d.split_k > 1 ? (design::bulk_stores_partials(d)
                               ? " (fp32 partial sums in the workspace, stored by bulk copy, added by reduce_split_k)"
                               : " (fp32 partial sums in the workspace, added by reduce_split_k)")
                        : "")
      << ", register_split " << design::to_string(d.register_split) << ", wgmma_in_flight " << d.wgmma_in_flight
      << ", schedule " << design::to_string(d.schedule) << (tf32 ? ", tf32_round " + design::to_string(d.tf32_round) : "")
      << (design::hopper_columns(d) ? ", consumer_layout columns (one 64-row A slice, each consumer " +
                                          std::to_string(design::hopper_consumer_n(d)) + " columns)"
                                    : "")
      << (d.multicast != design::Multicast::kNone
              ? ", multicast " + design::to_string(d.multicast) + " (shared tiles copied once per cluster row / column, a slice per block)"
              : "")
      << ".\n";
  }
  s << "#include <cuda.h>\n#include <cudaTypedefs.h>\n#include <cuda_runtime.h>\n";
  if (dtype == ops::DType::bf16) s << "#include <cuda_bf16.h>\n";
  if (dtype == ops::DType::f16) s << "#include <cuda_fp16.h>\n";
  s << "\n#include \"vxsynth_candidate.h\"\n\nnamespace {\n\n";
  const char* elem = dtype == ops::DType::bf16 ? "__nv_bfloat16" : dtype == ops::DType::f16 ? "__half" : "float";
  s << "using elem_t = " << elem << ";\n";
  s << "constexpr int kConsumers = " << design::hopper_consumers(d) << ", kBM = " << d.tile.m << ", kBN = " << d.tile.n
    << ", kBK = " << d.tile.k << ", kKStep = " << design::fragment_shape(d.fragment).k << ", kStages = " << d.stages
    << ", kThreads = " << d.fixed.block_size << ";\n";
  s << "constexpr int kClusterM = " << d.cluster.m << ", kClusterN = " << d.cluster.n << ";\n";
  s << "constexpr long long kK = 0;  // K read at run time\n";
  s << "constexpr bool kIsConv = " << (conv ? "true" : "false") << ", kHasBias = " << (d.op.has_bias() ? "true" : "false")
    << ", kRoundTf32 = " << (tf32 && d.tf32_round == design::Tf32Round::kWorkspace ? "true" : "false") << ";\n";
  s << "constexpr bool kRasterM = " << (d.raster == design::Raster::kMMajor ? "true" : "false")
    << ", kStoreTma = " << (design::is_bulk_store(d.epilogue_store) ? "true" : "false") << ";\n";
  if (later_axes(d)) {
    const bool setmaxnreg = d.register_split == design::RegisterSplit::kSetMaxNReg;
    s << "constexpr int kSplitK = " << d.split_k << ", kInFlight = " << d.wgmma_in_flight
      << ";  // K slices; wgmma groups a consumer leaves running\n";
    s << "constexpr bool kPersistent = " << (d.schedule == design::Schedule::kPersistent ? "true" : "false")
      << ";  // one block per SM walks the tiles\n";
    if (d.multicast != design::Multicast::kNone) {
      const bool mc_a = design::multicast_a(d.multicast), mc_b = design::multicast_b(d.multicast);
      s << "constexpr bool kMulticastA = " << (mc_a ? "true" : "false") << ", kMulticastB = " << (mc_b ? "true" : "false")
        << ";  // the cluster's blocks share A (a cluster row) / B (a cluster column)\n";
      s << "constexpr int kSliceA = " << (mc_a ? "kBM / kClusterN" : "kBM") << ", kSliceB = " << (mc_b ? "kBN / kClusterM" : "kBN")
        << ";  // the rows of A / B one block copies\n";
    }
    if (design::hopper_columns(d)) {
      s << "constexpr int kCN = " << design::hopper_consumer_n(d)
        << ";  // consumer_layout columns: each consumer's wgmma N, its columns of the tile (kBN = kConsumers x kCN)\n";
    }
    if (d.epilogue_store == design::EpilogueStore::kTmaSwizzled) {
      s << "constexpr int kBoxCols = 128 / static_cast<int>(sizeof(elem_t));  // columns of one 128-byte swizzled output box\n";
    } else if (design::bulk_stores_partials(d)) {
      s << "constexpr int kBoxCols = 128 / static_cast<int>(sizeof(elem_t));  // columns of one 128-byte box of partial sums\n";
    }
    if (setmaxnreg) {
      s << "constexpr int kProducerRegs = " << design::kHopperProducerRegisters
        << ", kConsumerRegs = " << design::hopper_consumer_registers(d) << ";  // setmaxnreg: registers per thread\n";
    }
  }
  s << "constexpr int kOpKind = " << abi_op(d.op.kind) << ", kDType = " << abi_dtype(dtype)
    << ", kPrecision = " << abi_precision(prec) << ";\n";
  s << "constexpr CUtensorMapDataType kMapType = CU_TENSOR_MAP_DATA_TYPE_"
    << (dtype == ops::DType::bf16 ? "BFLOAT16" : dtype == ops::DType::f16 ? "FLOAT16" : "FLOAT32") << ";\n";
  const char* to_f = dtype == ops::DType::bf16 ? "__bfloat162float(v)" : dtype == ops::DType::f16 ? "__half2float(v)" : "v";
  const char* from_f = dtype == ops::DType::bf16 ? "__float2bfloat16(v)" : dtype == ops::DType::f16 ? "__float2half(v)" : "v";
  s << "__device__ __forceinline__ float to_float(elem_t v) { return " << to_f << "; }\n";
  s << "__device__ __forceinline__ elem_t from_float(float v) { return " << from_f << "; }\n";
  if (tf32) {
    s << "// wgmma reads an fp32 operand as tf32 by dropping its low 13 bits; the vendor's tf32 path (and\n"
         "// the check's error model) rounds to nearest, so the operands are rounded before they are copied.\n"
         "__device__ __forceinline__ elem_t operand(elem_t v) {\n  unsigned r;\n"
         "  asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(v));\n  return __uint_as_float(r);\n}\n\n";
  } else {
    s << "__device__ __forceinline__ elem_t operand(elem_t v) { return v; }\n\n";
  }
  s << wgmma_function(design::hopper_consumer_n(d), dtype == ops::DType::bf16 ? "bf16" : dtype == ops::DType::f16 ? "f16" : "tf32",
                      design::fragment_shape(d.fragment).k);
  const char* pair_type = dtype == ops::DType::bf16 ? "__nv_bfloat162" : dtype == ops::DType::f16 ? "__half2" : "float2";
  std::map<std::string, std::string> pieces = bias_pieces(d.bias_load, pair_type);
  for (auto& [name, text] : later_pieces(d)) pieces[name] = text;
  // The output map: one box per warpgroup tile, or 128-byte swizzled boxes (tma_swizzled).
  const bool swizzled = d.epilogue_store == design::EpilogueStore::kTmaSwizzled;
  pieces["out_box_doc"] = swizzled                     ? "128-byte boxes (kBoxCols columns) with the copy engine's 128-byte swizzle"
                          : design::hopper_columns(d) ? "kCN boxes without swizzle (one per consumer's columns)"
                                                      : "kBN boxes without swizzle";
  // split_k > 1 with a bulk store: the map covers the fp32 partial sums [batch x kSplitK][M][N].
  const bool partials_map = design::bulk_stores_partials(d);
  pieces["out_box_cols"] = swizzled || partials_map       ? "static_cast<cuuint32_t>(kBoxCols)"
                           : design::hopper_columns(d) ? "static_cast<cuuint32_t>(kCN)"
                                                       : "static_cast<cuuint32_t>(kBN)";
  pieces["out_swizzle"] = swizzled ? "CU_TENSOR_MAP_SWIZZLE_128B" : "CU_TENSOR_MAP_SWIZZLE_NONE";
  // multicast: a block copies a slice of each shared tile (the map's box), the rest come from its group
  pieces["box_a"] = d.multicast != design::Multicast::kNone ? "kSliceA" : "kBM";
  pieces["box_b"] = d.multicast != design::Multicast::kNone ? "kSliceB" : "kBN";
  pieces["out_planes"] = partials_map ? "p.batch * kSplitK" : "p.batch";
  pieces["out_map_base"] = partials_map ? "p.partials" : "buffers->out";
  if (partials_map) {
    pieces["out_box_doc"] = std::string(swizzled ? "128-byte boxes (kBoxCols columns) with the copy engine's 128-byte swizzle"
                                                 : "128-byte boxes (kBoxCols columns) without swizzle") +
                            "; split_k: the fp32 partial sums [batch x kSplitK][M][N], not the output";
  }
  if (!later_axes(d)) {
    s << fill_markers(std::string(kHead) + kGemmGrid + kTail, pieces);
    return s.str();
  }
  // The general kernel writes its own bias pieces.
  for (const char* own : {"bias_copy", "bias_wait", "bias_add_tile", "bias_add_direct"}) pieces.erase(own);
  for (auto& [name, text] : multicast_pieces(d)) pieces[name] = text;
  s << fill_markers(std::string(kHead) + general_gemm(d) + kTail, pieces);
  return s.str();
}

}  // namespace vxsynth::codegen
