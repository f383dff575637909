// Naive SGEMM host program (Vortex regression style): ./sgemm [-n size] [-k kernel.vxbin]
#include <unistd.h>
#include <vortex.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
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
static uint32_t size = 32;

static vx_device_h device = nullptr;
static vx_buffer_h A_buffer = nullptr;
static vx_buffer_h B_buffer = nullptr;
static vx_buffer_h C_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr;
static vx_buffer_h args_buffer = nullptr;

static void show_usage() { printf("Usage: [-k: kernel] [-n size] [-h: help]\n"); }

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "n:k:h")) != -1) {
    switch (c) {
      case 'n': size = (uint32_t)atoi(optarg); break;
      case 'k': kernel_file = optarg; break;
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

// The kernel's float sum (GCC may fuse each step into fmadd.s) is within the classic bound
// n * 2^-24 * sum|a*b| of the exact dot product; a wrong element misses it by far.
static bool close_enough(double exact, double abs_sum, float actual, uint32_t n) {
  double tolerance = (n + 2) * std::ldexp(1.0, -24) * abs_sum;
  return std::fabs((double)actual - exact) <= tolerance;
}

int main(int argc, char* argv[]) {
  parse_args(argc, argv);
  if (size == 0) {
    printf("Error: -n must be > 0\n");
    return -1;
  }
  std::mt19937 rng(size);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);

  RT_CHECK(vx_dev_open(&device));
  uint32_t size_sq = size * size;
  uint64_t buf_size = size_sq * sizeof(TYPE);
  printf("matrix size: %ux%u\n", size, size);

  kernel_arg_t kernel_arg = {};
  kernel_arg.grid_dim[0] = size;
  kernel_arg.grid_dim[1] = size;
  kernel_arg.size = size;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &A_buffer));
  RT_CHECK(vx_mem_address(A_buffer, &kernel_arg.A_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &B_buffer));
  RT_CHECK(vx_mem_address(B_buffer, &kernel_arg.B_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &C_buffer));
  RT_CHECK(vx_mem_address(C_buffer, &kernel_arg.C_addr));

  std::vector<TYPE> h_A(size_sq), h_B(size_sq), h_C(size_sq);
  for (uint32_t i = 0; i < size_sq; ++i) {
    h_A[i] = dist(rng);
    h_B[i] = dist(rng);
  }
  RT_CHECK(vx_copy_to_dev(A_buffer, h_A.data(), 0, buf_size));
  RT_CHECK(vx_copy_to_dev(B_buffer, h_B.data(), 0, buf_size));

  RT_CHECK(vx_upload_kernel_file(device, kernel_file, &krnl_buffer));
  RT_CHECK(vx_upload_bytes(device, &kernel_arg, sizeof(kernel_arg_t), &args_buffer));
  RT_CHECK(vx_start(device, krnl_buffer, args_buffer));
  RT_CHECK(vx_ready_wait(device, VX_MAX_TIMEOUT));
  RT_CHECK(vx_copy_from_dev(h_C.data(), C_buffer, 0, buf_size));

  int errors = 0;
  for (uint32_t row = 0; row < size; ++row) {
    for (uint32_t col = 0; col < size; ++col) {
      double ref = 0, abs_sum = 0;
      for (uint32_t e = 0; e < size; ++e) {
        double term = (double)h_A[row * size + e] * h_B[e * size + col];
        ref += term;
        abs_sum += std::fabs(term);
      }
      TYPE actual = h_C[row * size + col];
      if (!close_enough(ref, abs_sum, actual, size)) {
        if (errors < 20) printf("*** error: [%u][%u] expected=%f, actual=%f\n", row, col, (double)ref, (double)actual);
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
