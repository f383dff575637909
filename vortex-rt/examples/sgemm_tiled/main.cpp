// Tiled SGEMM host program (Vortex regression style):
//   ./sgemm_tiled [-n size] [-t tile] [-k kernel.vxbin]
// The tile defaults to the largest power of two whose tile x tile block fits one core
// (warps x threads) and whose two tiles fit the local memory of one CTA slot.
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
static uint32_t tile = 0;  // 0 = choose

static vx_device_h device = nullptr;
static vx_buffer_h A_buffer = nullptr;
static vx_buffer_h B_buffer = nullptr;
static vx_buffer_h C_buffer = nullptr;
static vx_buffer_h krnl_buffer = nullptr;
static vx_buffer_h args_buffer = nullptr;

static void show_usage() { printf("Usage: [-k: kernel] [-n size] [-t tile] [-h: help]\n"); }

static void parse_args(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "n:t:k:h")) != -1) {
    switch (c) {
      case 'n': size = (uint32_t)atoi(optarg); break;
      case 't': tile = (uint32_t)atoi(optarg); break;
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

static bool tile_fits(uint32_t t, uint64_t threads_per_core) {
  uint32_t max_localmem = 0;
  if (uint64_t(t) * t > threads_per_core) return false;
  if (vx_check_occupancy(device, t * t, &max_localmem) != 0) return false;
  return 2 * t * t * sizeof(float) <= max_localmem;
}

int main(int argc, char* argv[]) {
  parse_args(argc, argv);
  if (size == 0) {
    printf("Error: -n must be > 0\n");
    return -1;
  }
  std::mt19937 rng(size * 31 + 7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);

  RT_CHECK(vx_dev_open(&device));
  uint64_t num_warps = 0, num_threads = 0;
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_WARPS, &num_warps));
  RT_CHECK(vx_dev_caps(device, VX_CAPS_NUM_THREADS, &num_threads));
  if (tile == 0) {
    tile = 1;
    while (tile < 16 && tile_fits(tile * 2, num_warps * num_threads)) tile *= 2;
  } else if (!tile_fits(tile, num_warps * num_threads)) {
    printf("Error: a %ux%u tile does not fit a core (%u warps x %u threads, local memory)\n", tile, tile,
           (unsigned)num_warps, (unsigned)num_threads);
    cleanup();
    return -1;
  }
  if (tile == 1 && num_warps * num_threads > 1) {
    // A 1x1 block is a task, and tasks of one core share one __local_mem slice.
    printf("Error: tile 1 needs a core of one thread\n");
    cleanup();
    return -1;
  }
  uint32_t size_sq = size * size;
  uint64_t buf_size = size_sq * sizeof(float);
  printf("matrix size: %ux%u, tile: %ux%u\n", size, size, tile, tile);

  kernel_arg_t kernel_arg = {};
  kernel_arg.grid_dim[0] = (size + tile - 1) / tile;
  kernel_arg.grid_dim[1] = (size + tile - 1) / tile;
  kernel_arg.block_dim[0] = tile;
  kernel_arg.block_dim[1] = tile;
  kernel_arg.size = size;
  kernel_arg.tile_size = tile;
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &A_buffer));
  RT_CHECK(vx_mem_address(A_buffer, &kernel_arg.A_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_READ, &B_buffer));
  RT_CHECK(vx_mem_address(B_buffer, &kernel_arg.B_addr));
  RT_CHECK(vx_mem_alloc(device, buf_size, VX_MEM_WRITE, &C_buffer));
  RT_CHECK(vx_mem_address(C_buffer, &kernel_arg.C_addr));

  std::vector<float> h_A(size_sq), h_B(size_sq), h_C(size_sq);
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

  // The kernel's float sum is within n * 2^-24 * sum|a*b| of the exact dot product.
  int errors = 0;
  for (uint32_t row = 0; row < size; ++row) {
    for (uint32_t col = 0; col < size; ++col) {
      double ref = 0, abs_sum = 0;
      for (uint32_t e = 0; e < size; ++e) {
        double term = (double)h_A[row * size + e] * h_B[e * size + col];
        ref += term;
        abs_sum += std::fabs(term);
      }
      double tolerance = (size + tile + 2) * std::ldexp(1.0, -24) * abs_sum;
      float actual = h_C[row * size + col];
      if (!(std::fabs((double)actual - ref) <= tolerance)) {
        if (errors < 20) printf("*** error: [%u][%u] expected=%f, actual=%f\n", row, col, ref, (double)actual);
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
