// Internal: the blocked fp64-accumulating GEMM under the CPU reference (not a public header).
#pragma once

#include <cstdint>

namespace vxsynth::ops {

// Rows of the GEMM view handed to one task of the reference (the unit of parallel work).
inline constexpr std::int64_t kGemmRowChunk = 64;

// C[i*ldc + j] = sum_k A[i*lda + k] * B[j*ldb + k] for i < m, j < n, k < k_len.
// Products of two floats are exact in fp64; sums are fp64 in a fixed order (k blocks, lanes),
// independent of the caller's threading, so the reference is deterministic.
void gemm_nt_f64(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, std::int64_t m,
                 std::int64_t n, std::int64_t k_len, double* c, std::int64_t ldc);

// The baseline-ISA copy, whatever the CPU supports (tests check both copies agree bit for bit).
void gemm_nt_f64_baseline(const float* a, std::int64_t lda, const float* b, std::int64_t ldb, std::int64_t m,
                          std::int64_t n, std::int64_t k_len, double* c, std::int64_t ldc);

}  // namespace vxsynth::ops
