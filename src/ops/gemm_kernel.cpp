#include "ops/gemm_kernel.h"

#include <algorithm>

namespace vxsynth::ops {

namespace {

constexpr std::int64_t kBlockK = 256;  // A panel of 64 x 256 floats stays in L2
constexpr int kLanes = 4;              // independent partial sums per element (vectorisable)
constexpr int kMR = 4, kNR = 2;        // register tile

// acc over one k block for an mr x nr tile (mr <= kMR, nr <= kNR; compile-time full tiles are the
// fast path). Lane l sums the k with k % kLanes == l; lanes are then added in order.
template <int MR, int NR>
inline void tile(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, std::int64_t k_len, double* c,
                 std::int64_t ldc) {
  double acc[MR][NR][kLanes] = {};
  std::int64_t k = 0;
  for (; k + kLanes <= k_len; k += kLanes) {
    double av[MR][kLanes], bv[NR][kLanes];
    for (int r = 0; r < MR; ++r)
      for (int l = 0; l < kLanes; ++l) av[r][l] = static_cast<double>(a[r * lda + k + l]);
    for (int s = 0; s < NR; ++s)
      for (int l = 0; l < kLanes; ++l) bv[s][l] = static_cast<double>(b[s * ldb + k + l]);
    for (int r = 0; r < MR; ++r)
      for (int s = 0; s < NR; ++s)
        for (int l = 0; l < kLanes; ++l) acc[r][s][l] += av[r][l] * bv[s][l];
  }
  for (int l = 0; k < k_len; ++k, ++l) {
    for (int r = 0; r < MR; ++r)
      for (int s = 0; s < NR; ++s)
        acc[r][s][l] += static_cast<double>(a[r * lda + k]) * static_cast<double>(b[s * ldb + k]);
  }
  for (int r = 0; r < MR; ++r)
    for (int s = 0; s < NR; ++s) {
      double sum = 0.0;
      for (int l = 0; l < kLanes; ++l) sum += acc[r][s][l];
      c[r * ldc + s] += sum;
    }
}

template <int MR>
inline void tile_rows(int nr, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                      std::int64_t k_len, double* c, std::int64_t ldc) {
  if (nr == 2) tile<MR, 2>(a, lda, b, ldb, k_len, c, ldc);
  else tile<MR, 1>(a, lda, b, ldb, k_len, c, ldc);
}

}  // namespace

void gemm_nt_f64(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, std::int64_t m, std::int64_t n,
                 std::int64_t k_len, double* c, std::int64_t ldc) {
  for (std::int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0);
  for (std::int64_t k0 = 0; k0 < k_len; k0 += kBlockK) {
    const std::int64_t kb = std::min(kBlockK, k_len - k0);
    for (std::int64_t j = 0; j < n; j += kNR) {
      const int nr = static_cast<int>(std::min<std::int64_t>(kNR, n - j));
      const float* bj = b + j * ldb + k0;
      std::int64_t i = 0;
      for (; i + kMR <= m; i += kMR) tile_rows<kMR>(nr, a + i * lda + k0, lda, bj, ldb, kb, c + i * ldc + j, ldc);
      for (; i < m; ++i) tile_rows<1>(nr, a + i * lda + k0, lda, bj, ldb, kb, c + i * ldc + j, ldc);
    }
  }
}

}  // namespace vxsynth::ops
