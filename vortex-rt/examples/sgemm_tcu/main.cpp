// Tensor-unit GEMM host program (Vortex regression style):
//   ./sgemm_tcu [-m M] [-n N] [-k K] [-k kernel.vxbin is -f here]
// fp16 inputs (rounded to nearest even from random floats), fp32 results, checked against a
// double-precision reference of the same fp16 values.
#include <unistd.h>
#include <vortex.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common.h"

#define RT_CHECK(_expr)                                            \
  do {                                                             \
    int _ret = _expr;                                              \
    if (0 == _ret) break;                                          \
    printf("Error: '%s' returned %d!\n", #_expr, (int)_ret);       \
    cleanup();                                                     \
    exit(-1);                                                      \
  } while (false)

static const char* kernel_file = "kernel.vxbin";
static uint32_t M = 20, N = 24, K = 40;

static vx_device_h device = nullptr;
static vx_buffer_h A_buffer = nullptr;
static vx_buffer_h B_buffer = nullptr;
static vx_buffer_h C_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr;
static vx_buffer_h args_buffer = nullptr;

static void show_usage() { printf("Usage: [-f: kernel] [-m M] [-n N] [-k K] [-h: help]\n"); }

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "m:n:k:f:h")) != -1) {
    switch (c) {
      case 'm': M = (uint32_t)atoi(optarg); break;
      case 'n': N = (uint32_t)atoi(optarg); break;
      case 'k': K = (uint32_t)atoi(optarg); break;
      case 'f': kernel_file = optarg; break;
      case 'h': show_usage(); exit(0);
      default: show_usage(); exit(-1);
    }
  }
}

static void cleanup() {
  if (device) {
    vx_mem_free(A_buffer);
    vx_mem_free(B_buffer);
    vx_mem_free(C_buffer);
    vx_mem_free(krnl_buffer);
    vx_mem_free(args_buffer);
    vx_dev_close(device);
  }
}

// IEEE binary16, round to nearest even (inputs here are normal and in range).
static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t man = x & 0x7fffff;
  if (exp <= 0) return (uint16_t)sign;  // flush the (unused) tiny range to zero
  uint32_t h = ((uint32_t)exp << 10) | (man >> 13);
  uint32_t rest = man & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return (uint16_t)(sign | h);
}

static double from_half(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  double man = h & 0x3ff;
  double v = exp == 0 ? std::ldexp(man, -24) : std::ldexp(1024.0 + man, exp - 25);
  return (h & 0x8000) ? -v : v;
}

static uint32_t round_up(uint32_t v, uint32_t m) { return (v + m - 1) / m * m; }

int main(int argc, char* argv[]) {
  parse_args(argc, argv);
  if (M == 0 || N == 0 || K == 0) {
    printf("Error: sizes must be > 0\n");
    return -1;
  }
  RT_CHECK(vx_dev_open(&device));
  uint64_t isa = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_ISA_FLAGS, &isa));
  if (!(isa & VX_ISA_EXT_TCU)) {
    printf("Error: the device has no tensor unit\n");
    cleanup();
    return -1;
  }
  const uint32_t Mp = round_up(M, 16), Np = round_up(N, 16), Kp = round_up(K, 32);
  printf("C(%ux%u) = A(%ux%u) * B(%ux%u), fp16 -> fp32 (padded to %ux%ux%u)\n", M, N, M, K, K, N, Mp, Np, Kp);

  std::mt19937 rng(M * 1000 + N * 10 + K);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<uint16_t> h_A(Mp * Kp, 0), h_B(Kp * Np, 0);
  for (uint32_t r = 0; r < M; ++r)
    for (uint32_t c = 0; c < K; ++c) h_A[r * Kp + c] = to_half(dist(rng));
  for (uint32_t r = 0; r < K; ++r)
    for (uint32_t c = 0; c < N; ++c) h_B[r * Np + c] = to_half(dist(rng));
  std::vector<float> h_C(Mp * Np);

  kernel_arg_t kernel_arg = {};
  kernel_arg.M = Mp;
  kernel_arg.N = Np;
  kernel_arg.K = Kp;
  RT_CHECK(vx_mem_alloc(device, h_A.size() * 2, VX_MEM_READ, &A_buffer));
  RT_CHECK(vx_mem_address(A_buffer, &kernel_arg.A_addr));
  RT_CHECK(vx_mem_alloc(device, h_B.size() * 2, VX_MEM_READ, &B_buffer));
  RT_CHECK(vx_mem_address(B_buffer, &kernel_arg.B_addr));
  RT_CHECK(vx_mem_alloc(device, h_C.size() * 4, VX_MEM_WRITE, &C_buffer));
  RT_CHECK(vx_mem_address(C_buffer, &kernel_arg.C_addr));
  RT_CHECK(vx_copy_to_dev(A_buffer, h_A.data(), 0, h_A.size() * 2));
  RT_CHECK(vx_copy_to_dev(B_buffer, h_B.data(), 0, h_B.size() * 2));

  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_C.data(), C_buffer, 0, h_C.size() * 4));

  // fp16 x fp16 products are exact in fp32; the unit adds them in fp32 (K roundings).
  int errors = 0;
  for (uint32_t r = 0; r < M; ++r) {
    for (uint32_t c = 0; c < N; ++c) {
      double exact = 0, abs_sum = 0;
      for (uint32_t e = 0; e < K; ++e) {
        double term = from_half(h_A[r * Kp + e]) * from_half(h_B[e * Np + c]);
        exact += term;
        abs_sum += std::fabs(term);
      }
      double tolerance = (Kp + 2) * std::ldexp(1.0, -24) * abs_sum;
      float actual = h_C[r * Np + c];
      if (!(std::fabs((double)actual - exact) <= tolerance)) {
        if (errors < 20) printf("*** error: [%u][%u] expected=%f, actual=%f\n", r, c, exact, (double)actual);
        ++errors;
      }
    }
  }
  cleanup();
  if (errors != 0) {
    printf("Found %d errors!\nFAILED!\n", errors);
    return errors;
  }
  printf("PASSED!\n");
  return 0;
}
