// The Vortex 2.x host API (vortex.h) over the simulator: allocation, copies, ACLs, uploads,
// launches, counters and every error path a host program can hit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>
#include <vector>

#include "host_test_util.h"
#include "vortex.h"
#include "vortex_vxsim.h"

using namespace vxrt_test;
using ::testing::HasSubstr;

namespace {

// Mirrors vortex-rt/examples/vecadd/common.h (the examples' own headers share one name).
struct VecaddArgs {
  uint32_t num_points;
  uint64_t src0_addr;
  uint64_t src1_addr;
  uint64_t dst_addr;
};

struct SaxpyArgs {
  uint32_t num_points;
  float alpha;
  uint64_t x_addr;
  uint64_t y_addr;
};

struct TiledArgs {
  uint32_t grid_dim[2];
  uint32_t block_dim[2];
  uint32_t size;
  uint32_t tile_size;
  uint64_t A_addr;
  uint64_t B_addr;
  uint64_t C_addr;
};

class HostApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(vxsim_set_device_config(nullptr), 0);
    ASSERT_EQ(vx_dev_open(&device_), 0);
    ASSERT_EQ(vxsim_set_console_mode(device_, 2), 0);
  }
  void TearDown() override {
    if (device_ != nullptr) {
      ::testing::internal::CaptureStdout();  // the PERF report
      EXPECT_EQ(vx_dev_close(device_), 0);
      ::testing::internal::GetCapturedStdout();
    }
    vxsim_set_device_config(nullptr);
  }

  vx_buffer_h alloc(uint64_t size, int flags) {
    vx_buffer_h buffer = nullptr;
    EXPECT_EQ(vx_mem_alloc(device_, size, flags, &buffer), 0);
    return buffer;
  }
  uint64_t address(vx_buffer_h buffer) {
    uint64_t a = 0;
    EXPECT_EQ(vx_mem_address(buffer, &a), 0);
    return a;
  }
  vx_buffer_h upload(const std::string& path) {
    vx_buffer_h kernel = nullptr;
    EXPECT_EQ(vx_upload_kernel_file(device_, path.c_str(), &kernel), 0);
    return kernel;
  }
  vx_buffer_h upload_args(const void* args, size_t size) {
    vx_buffer_h buffer = nullptr;
    EXPECT_EQ(vx_upload_bytes(device_, args, size, &buffer), 0);
    return buffer;
  }

  // Launches and waits; returns vx_ready_wait's result and its stderr.
  int launch(vx_buffer_h kernel, vx_buffer_h args, std::string* errors = nullptr) {
    if (vx_start(device_, kernel, args) != 0) return -1000;
    ::testing::internal::CaptureStderr();
    int result = vx_ready_wait(device_, VX_MAX_TIMEOUT);
    std::string text = ::testing::internal::GetCapturedStderr();
    if (errors != nullptr) *errors = text;
    return result;
  }

  // vecadd of n random floats with the given destination flags; returns the launch result.
  int run_vecadd(uint32_t n, int dst_flags, uint32_t seed, std::string* errors = nullptr, bool check = true) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-50.0f, 50.0f);
    std::vector<float> a(n), b(n), c(n, 0.0f);
    for (uint32_t i = 0; i < n; ++i) {
      a[i] = dist(rng);
      b[i] = dist(rng);
    }
    vx_buffer_h A = alloc(n * 4, VX_MEM_READ), B = alloc(n * 4, VX_MEM_READ), C = alloc(n * 4, dst_flags);
    EXPECT_EQ(vx_copy_to_dev(A, a.data(), 0, n * 4), 0);
    EXPECT_EQ(vx_copy_to_dev(B, b.data(), 0, n * 4), 0);
    if (kernel_ == nullptr) kernel_ = upload(example_kernel("vecadd"));
    VecaddArgs args{n, address(A), address(B), address(C)};
    vx_buffer_h arg_buffer = upload_args(&args, sizeof args);
    int result = launch(kernel_, arg_buffer, errors);
    if (result == 0 && check) {
      EXPECT_EQ(vx_copy_from_dev(c.data(), C, 0, n * 4), 0);
      for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(c[i], a[i] + b[i]) << "element " << i;
    }
    for (vx_buffer_h buffer : {A, B, C, arg_buffer}) EXPECT_EQ(vx_mem_free(buffer), 0);
    return result;
  }

  vx_device_h device_ = nullptr;
  vx_buffer_h kernel_ = nullptr;
};

TEST_F(HostApi, CapsDescribeTheConfiguredDevice) {
  ASSERT_EQ(vx_dev_close(device_), 0);
  device_ = nullptr;
  vxsim_device_config_t config{3, 8, 16, 8192, 0};
  ASSERT_EQ(vxsim_set_device_config(&config), 0);
  ASSERT_EQ(vx_dev_open(&device_), 0);
  uint64_t value = 0;
  ASSERT_EQ(vx_dev_caps(device_, VX_CAPS_NUM_CORES, &value), 0);
  EXPECT_EQ(value, 3u);
  ASSERT_EQ(vx_dev_caps(device_, VX_CAPS_NUM_WARPS, &value), 0);
  EXPECT_EQ(value, 8u);
  ASSERT_EQ(vx_dev_caps(device_, VX_CAPS_NUM_THREADS, &value), 0);
  EXPECT_EQ(value, 16u);
  ASSERT_EQ(vx_dev_caps(device_, VX_CAPS_LOCAL_MEM_SIZE, &value), 0);
  EXPECT_EQ(value, 8192u);
  ASSERT_EQ(vx_dev_caps(device_, VX_CAPS_CACHE_LINE_SIZE, &value), 0);
  EXPECT_EQ(value, 64u);
  ASSERT_EQ(vx_dev_caps(device_, VX_CAPS_GLOBAL_MEM_SIZE, &value), 0);
  EXPECT_EQ(value, uint64_t{1} << 32);
  ASSERT_EQ(vx_dev_caps(device_, VX_CAPS_ISA_FLAGS, &value), 0);
  EXPECT_EQ(VX_ISA_ARCH(value), 32);
  for (uint64_t bit : {VX_ISA_STD_I, VX_ISA_STD_M, VX_ISA_STD_A, VX_ISA_STD_F, VX_ISA_EXT_LMEM, VX_ISA_EXT_TCU}) {
    EXPECT_NE(value & bit, 0u) << bit;
  }
  EXPECT_EQ(value & VX_ISA_STD_D, 0u);
  uint32_t localmem = 0;
  ASSERT_EQ(vx_check_occupancy(device_, 40, &localmem), 0);  // 3 warps a group, 2 groups a core
  EXPECT_EQ(localmem, 4096u);
  ::testing::internal::CaptureStderr();
  EXPECT_NE(vx_check_occupancy(device_, 129, &localmem), 0);
  EXPECT_NE(vx_dev_caps(device_, 0x42, &value), 0);
  EXPECT_NE(vx_dev_caps(device_, VX_CAPS_NUM_CORES, nullptr), 0);
  std::string errors = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(errors, HasSubstr("group_size"));
  EXPECT_THAT(errors, HasSubstr("unknown capability 66"));
}

TEST_F(HostApi, InvalidConfigurationsAreRejectedWithTheirName) {
  vxsim_device_config_t bad{1, 3, 4, 16384, 0};
  ::testing::internal::CaptureStderr();
  EXPECT_NE(vxsim_set_device_config(&bad), 0);
  setenv("VXSIM_THREADS", "12", 1);
  vx_device_h other = nullptr;
  EXPECT_NE(vx_dev_open(&other), 0);
  setenv("VXSIM_THREADS", "eight", 1);
  EXPECT_NE(vx_dev_open(&other), 0);
  unsetenv("VXSIM_THREADS");
  std::string errors = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(errors, HasSubstr("warps"));
  EXPECT_THAT(errors, HasSubstr("threads"));
  EXPECT_THAT(errors, HasSubstr("VXSIM_THREADS"));
  EXPECT_THAT(errors, HasSubstr("'eight'"));

  setenv("VXSIM_CORES", "2", 1);
  setenv("VXSIM_WARPS", "2", 1);
  ASSERT_EQ(vx_dev_open(&other), 0);
  unsetenv("VXSIM_CORES");
  unsetenv("VXSIM_WARPS");
  uint64_t cores = 0, warps = 0;
  EXPECT_EQ(vx_dev_caps(other, VX_CAPS_NUM_CORES, &cores), 0);
  EXPECT_EQ(vx_dev_caps(other, VX_CAPS_NUM_WARPS, &warps), 0);
  EXPECT_EQ(cores, 2u);
  EXPECT_EQ(warps, 2u);
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(vx_dev_close(other), 0);
  ::testing::internal::GetCapturedStdout();
}

TEST_F(HostApi, AllocationsAreAlignedDisjointAndAccounted) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint64_t> sizes(1, 5000);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  std::vector<vx_buffer_h> buffers;
  uint64_t total = 0;
  for (int i = 0; i < 40; ++i) {
    uint64_t size = sizes(rng);
    vx_buffer_h buffer = alloc(size, VX_MEM_READ_WRITE);
    uint64_t a = address(buffer);
    EXPECT_GE(a, 0x10000u);
    EXPECT_EQ(a % 64, 0u);
    for (auto [base, length] : ranges) EXPECT_TRUE(a + size <= base || base + length <= a) << a;
    ranges.emplace_back(a, size);
    buffers.push_back(buffer);
    total += size;
  }
  uint64_t free_bytes = 0, used = 0;
  ASSERT_EQ(vx_mem_info(device_, &free_bytes, &used), 0);
  EXPECT_EQ(used, total);
  EXPECT_EQ(free_bytes + used, 0x80000000u - 0x10000u);
  // Freed space is reused: free the first buffer and allocate the same size again.
  uint64_t first = ranges[0].first;
  ASSERT_EQ(vx_mem_free(buffers[0]), 0);
  vx_buffer_h again = alloc(ranges[0].second, VX_MEM_READ);
  EXPECT_EQ(address(again), first);

  ::testing::internal::CaptureStderr();
  vx_buffer_h bad = nullptr;
  EXPECT_NE(vx_mem_alloc(device_, 0, VX_MEM_READ, &bad), 0);
  EXPECT_NE(vx_mem_alloc(device_, 64, 0, &bad), 0);
  EXPECT_NE(vx_mem_alloc(device_, 64, 0x10, &bad), 0);
  EXPECT_NE(vx_mem_alloc(device_, uint64_t{3} << 30, VX_MEM_READ, &bad), 0);
  EXPECT_NE(vx_mem_reserve(device_, first + 32, 16, VX_MEM_READ, &bad), 0);
  EXPECT_NE(vx_mem_reserve(device_, 0x20, 16, VX_MEM_READ, &bad), 0);  // below the IO counter area
  EXPECT_NE(vx_mem_alloc(device_, 64, VX_MEM_READ, nullptr), 0);
  std::string errors = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(errors, HasSubstr("size"));
  EXPECT_THAT(errors, HasSubstr("VX_MEM_READ"));
  EXPECT_THAT(errors, HasSubstr("out of device memory"));
  EXPECT_THAT(errors, HasSubstr("overlaps"));
  EXPECT_THAT(errors, HasSubstr("IO block"));

  // As SimX, the IO block's counter area may be reserved (io_addr); it is not heap.
  uint64_t used_before = 0, used_after = 0;
  ASSERT_EQ(vx_mem_info(device_, nullptr, &used_before), 0);
  vx_buffer_h io = nullptr;
  ASSERT_EQ(vx_mem_reserve(device_, 0x100, 16, VX_MEM_READ, &io), 0);
  EXPECT_EQ(address(io), 0x100u);
  ASSERT_EQ(vx_mem_info(device_, nullptr, &used_after), 0);
  EXPECT_EQ(used_after, used_before);

  vx_buffer_h fixed = nullptr;
  ASSERT_EQ(vx_mem_reserve(device_, 0x40000000, 4096, VX_MEM_READ_WRITE, &fixed), 0);
  EXPECT_EQ(address(fixed), 0x40000000u);
}

TEST_F(HostApi, CopiesRoundTripAndStayInsideTheBuffer) {
  std::vector<uint8_t> data(1000);
  std::mt19937 rng(11);
  for (auto& byte : data) byte = static_cast<uint8_t>(rng());
  vx_buffer_h buffer = alloc(1000, VX_MEM_READ_WRITE);
  ASSERT_EQ(vx_copy_to_dev(buffer, data.data(), 0, 1000), 0);
  ASSERT_EQ(vx_copy_to_dev(buffer, data.data(), 333, 7), 0);
  std::vector<uint8_t> back(1000);
  ASSERT_EQ(vx_copy_from_dev(back.data(), buffer, 0, 1000), 0);
  std::vector<uint8_t> expected = data;
  std::memcpy(expected.data() + 333, data.data(), 7);
  EXPECT_EQ(back, expected);
  std::vector<uint8_t> slice(9);
  ASSERT_EQ(vx_copy_from_dev(slice.data(), buffer, 991, 9), 0);
  EXPECT_TRUE(std::equal(slice.begin(), slice.end(), expected.begin() + 991));

  ::testing::internal::CaptureStderr();
  EXPECT_NE(vx_copy_to_dev(buffer, data.data(), 1, 1000), 0);
  EXPECT_NE(vx_copy_from_dev(back.data(), buffer, 1001, 0), 0);
  EXPECT_NE(vx_copy_to_dev(buffer, nullptr, 0, 4), 0);
  EXPECT_NE(vx_copy_to_dev(buffer, data.data(), UINT64_MAX, 2), 0);
  std::string errors = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(errors, HasSubstr("outside the buffer of 1000 bytes"));
  EXPECT_THAT(errors, HasSubstr("NULL"));
}

TEST_F(HostApi, StaleAndForeignHandlesAreErrorsNotCrashes) {
  vx_buffer_h buffer = alloc(64, VX_MEM_READ);
  ASSERT_EQ(vx_mem_free(buffer), 0);
  EXPECT_EQ(vx_mem_free(nullptr), 0);  // as Vortex
  uint8_t bytes[4] = {};
  uint64_t value = 0;
  int local = 0;
  ::testing::internal::CaptureStderr();
  EXPECT_NE(vx_mem_free(buffer), 0);
  EXPECT_NE(vx_copy_to_dev(buffer, bytes, 0, 4), 0);
  EXPECT_NE(vx_mem_address(buffer, &value), 0);
  EXPECT_NE(vx_mem_access(buffer, 0, 4, VX_MEM_READ), 0);
  EXPECT_NE(vx_dev_caps(nullptr, VX_CAPS_NUM_CORES, &value), 0);
  EXPECT_NE(vx_dev_caps(&local, VX_CAPS_NUM_CORES, &value), 0);
  EXPECT_NE(vx_start(device_, nullptr, nullptr), 0);
  EXPECT_NE(vx_ready_wait(nullptr, 0), 0);
  std::string errors = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(errors, HasSubstr("vx_mem_free: field 'hbuffer': expected a live buffer"));
  EXPECT_THAT(errors, HasSubstr("expected a device from vx_dev_open"));

  vx_device_h other = nullptr;
  ASSERT_EQ(vx_dev_open(&other), 0);
  ::testing::internal::CaptureStdout();
  ASSERT_EQ(vx_dev_close(other), 0);
  ::testing::internal::GetCapturedStdout();
  ::testing::internal::CaptureStderr();
  EXPECT_NE(vx_dev_close(other), 0);
  EXPECT_NE(vx_mem_alloc(other, 64, VX_MEM_READ, &buffer), 0);
  ::testing::internal::GetCapturedStderr();
}

// Thread-instructions the runtime's exit path runs on one lane after it read MINSTRET (the
// other counter slots, the exit code, fence, tmc): the stored count is below the final one by
// at most this.
constexpr uint64_t kExitTail = 400;

TEST_F(HostApi, VecaddRunsAtOddSizesAndCountsThreadInstructions) {
  uint64_t before_last = 0;
  for (uint32_t n : {1u, 7u, 37u, 301u}) {
    ASSERT_EQ(vxsim_instruction_counts(device_, &before_last, nullptr), 0);
    std::string errors;
    EXPECT_EQ(run_vecadd(n, VX_MEM_WRITE, n, &errors), 0) << errors;
  }
  uint64_t thread_instrs = 0, warp_instrs = 0;
  ASSERT_EQ(vxsim_instruction_counts(device_, &thread_instrs, &warp_instrs), 0);
  EXPECT_GT(warp_instrs, 0u);
  EXPECT_GT(thread_instrs, warp_instrs);  // 4 threads a warp, mostly all active
  // vx_mpm_query reads what the kernel's exit path stored, as Vortex's runtime does: the
  // counters of the last launch, taken just before the end.
  const uint64_t last_launch = thread_instrs - before_last;
  uint64_t minstret = 0, mcycle = 0;
  ASSERT_EQ(vx_mpm_query(device_, VX_CSR_MINSTRET, 0, &minstret), 0);
  EXPECT_LE(minstret, last_launch);
  EXPECT_GT(minstret + kExitTail, last_launch);
  ASSERT_EQ(vx_mpm_query(device_, VX_CSR_MCYCLE, 0, &mcycle), 0);
  EXPECT_GT(mcycle, 0u);
  EXPECT_LT(mcycle, minstret);  // functional mode: mcycle counts warp-instructions

  char* text = nullptr;
  size_t length = 0;
  std::FILE* stream = open_memstream(&text, &length);
  ASSERT_EQ(vx_dump_perf(device_, stream), 0);
  std::fclose(stream);
  std::string perf(text, length);
  std::free(text);
  EXPECT_THAT(perf, HasSubstr("cycles are not modelled"));
  EXPECT_THAT(perf, HasSubstr("4 launch(es)"));
  EXPECT_EQ(last_line(perf), "PERF: instrs=" + std::to_string(thread_instrs) + ", cycles=n/a, IPC=n/a");

  ::testing::internal::CaptureStderr();
  EXPECT_NE(vx_mpm_query(device_, VX_CSR_MINSTRET, 1, &minstret), 0);
  EXPECT_NE(vx_mpm_query(device_, VX_CSR_MPM_BASE + 32, 0, &minstret), 0);
  std::string errors = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(errors, HasSubstr("core"));
  EXPECT_THAT(errors, HasSubstr("0xB00..0xB1F"));
}

TEST_F(HostApi, CountersAreStoredAtExitOverWhatMemoryHeldBefore) {
  // Vortex's memory holds 0xBAADF00D where nothing was written: a runtime whose exit path
  // does not store the counters makes Vortex print PERF: instrs=-4995072469926809587. Fill
  // the counter blocks with that pattern through an IO reservation first.
  ASSERT_EQ(vx_dev_close(device_), 0);
  vxsim_device_config_t config{2, 4, 4, 16384, 0};
  ASSERT_EQ(vxsim_set_device_config(&config), 0);
  ASSERT_EQ(vx_dev_open(&device_), 0);
  ASSERT_EQ(vxsim_set_console_mode(device_, 2), 0);
  const uint64_t blocks = 2 * 256;
  vx_buffer_h io = nullptr;
  ASSERT_EQ(vx_mem_reserve(device_, IO_MPM_ADDR, blocks, VX_MEM_READ_WRITE, &io), 0);
  const std::vector<uint32_t> poison(blocks / 4, 0xBAADF00Du);
  ASSERT_EQ(vx_copy_to_dev(io, poison.data(), 0, blocks), 0);
  ASSERT_EQ(vx_mem_free(io), 0);

  EXPECT_EQ(run_vecadd(999, VX_MEM_WRITE, 5), 0);
  uint64_t total = 0, sum = 0;
  ASSERT_EQ(vxsim_instruction_counts(device_, &total, nullptr), 0);
  for (uint32_t core = 0; core < 2; ++core) {
    uint64_t instrs = 0, cycles = 0, user = 0;
    ASSERT_EQ(vx_mpm_query(device_, VX_CSR_MINSTRET, core, &instrs), 0);
    ASSERT_EQ(vx_mpm_query(device_, VX_CSR_MCYCLE, core, &cycles), 0);
    ASSERT_EQ(vx_mpm_query(device_, VX_CSR_MPM_BASE + 31, core, &user), 0);
    EXPECT_GT(instrs, 999u) << "core " << core << " did its share";
    EXPECT_GT(cycles, 0u) << "core " << core;
    for (uint64_t value : {instrs, cycles, user}) {
      EXPECT_NE(value >> 32, 0xBAADF00Du) << "core " << core << ": a slot was not stored at exit";
      EXPECT_NE(value & 0xFFFFFFFFu, 0xBAADF00Du) << "core " << core << ": a slot was not stored at exit";
    }
    sum += instrs;
  }
  EXPECT_LE(sum, total);
  EXPECT_GT(sum + 2 * kExitTail, total);
  uint64_t exit_slot = 0;
  ASSERT_EQ(vx_mpm_query(device_, VX_CSR_MPM_RESERVED, 0, &exit_slot), 0);
  EXPECT_EQ(exit_slot & 0xFFFFFFFFu, 0u);  // exit code 0, stored at exit over the pattern
}

TEST_F(HostApi, IoReservationHoldsHostDataUntilTheKernelExits) {
  // Vortex's io_addr test: the host reserves the IO counter area, fills it, and the kernel
  // reads it. The exit slot (IO_MPM_ADDR + 8) is written only at exit, so the kernel sees
  // the host's word there too.
  const uint32_t n = 16;
  vx_buffer_h io = nullptr;
  ASSERT_EQ(vx_mem_reserve(device_, IO_MPM_ADDR, n * 4, VX_MEM_READ, &io), 0);
  std::vector<float> values(n);
  for (uint32_t i = 0; i < n; ++i) values[i] = 0.5f + float(i * i);
  ASSERT_EQ(vx_copy_to_dev(io, values.data(), 0, n * 4), 0);
  std::vector<float> zeros(n, 0.0f), out(n, -1.0f);
  vx_buffer_h B = alloc(n * 4, VX_MEM_READ), C = alloc(n * 4, VX_MEM_WRITE);
  ASSERT_EQ(vx_copy_to_dev(B, zeros.data(), 0, n * 4), 0);
  VecaddArgs args{n, IO_MPM_ADDR, address(B), address(C)};
  vx_buffer_h arg_buffer = upload_args(&args, sizeof args);
  std::string errors;
  ASSERT_EQ(launch(upload(example_kernel("vecadd")), arg_buffer, &errors), 0) << errors;
  ASSERT_EQ(vx_copy_from_dev(out.data(), C, 0, n * 4), 0);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(out[i], values[i]) << "element " << i;
  // After the exit the area holds the stored counters: slot 0 is mcycle.
  uint32_t words[4] = {};
  ASSERT_EQ(vx_copy_from_dev(words, io, 0, sizeof words), 0);
  uint64_t mcycle = 0;
  ASSERT_EQ(vx_mpm_query(device_, VX_CSR_MCYCLE, 0, &mcycle), 0);
  EXPECT_EQ(words[0], uint32_t(mcycle));
  EXPECT_EQ(words[2], 0u);  // the exit code

  // The console and anything straddling the IO block's end stay refused.
  vx_buffer_h bad = nullptr;
  ::testing::internal::CaptureStderr();
  EXPECT_NE(vx_mem_reserve(device_, IO_COUT_ADDR, 16, VX_MEM_READ, &bad), 0);
  EXPECT_NE(vx_mem_reserve(device_, USER_BASE_ADDR - 64, 128, VX_MEM_READ, &bad), 0);
  const std::string refused = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(refused, HasSubstr("console"));
}

TEST_F(HostApi, MultiCoreDeviceSplitsTheWorkAndReportsPerCore) {
  ASSERT_EQ(vx_dev_close(device_), 0);
  vxsim_device_config_t config{3, 2, 8, 16384, 0};
  ASSERT_EQ(vxsim_set_device_config(&config), 0);
  ASSERT_EQ(vx_dev_open(&device_), 0);
  ASSERT_EQ(vxsim_set_console_mode(device_, 2), 0);
  EXPECT_EQ(run_vecadd(1000, VX_MEM_WRITE, 3), 0);
  uint64_t total = 0, sum = 0;
  ASSERT_EQ(vxsim_instruction_counts(device_, &total, nullptr), 0);
  for (uint32_t core = 0; core < 3; ++core) {
    uint64_t instrs = 0;
    ASSERT_EQ(vx_mpm_query(device_, VX_CSR_MINSTRET, core, &instrs), 0);
    EXPECT_GT(instrs, 1000u) << "core " << core << " did its share";
    sum += instrs;
  }
  EXPECT_LE(sum, total);
  EXPECT_GT(sum + 3 * kExitTail, total);
  char* text = nullptr;
  size_t length = 0;
  std::FILE* stream = open_memstream(&text, &length);
  ASSERT_EQ(vx_dump_perf(device_, stream), 0);
  std::fclose(stream);
  std::string perf(text, length);
  std::free(text);
  EXPECT_THAT(perf, HasSubstr("PERF: core2: instrs="));
}

TEST_F(HostApi, OneKernelRunsManyTimesWithFreshState) {
  for (uint32_t round = 0; round < 3; ++round) EXPECT_EQ(run_vecadd(50 + round, VX_MEM_WRITE, 100 + round), 0);
  uint32_t startup = 0, arg = 0;
  ASSERT_EQ(vx_dcr_read(device_, VX_DCR_BASE_STARTUP_ADDR0, &startup), 0);
  EXPECT_EQ(startup, 0x80000000u);
  ASSERT_EQ(vx_dcr_read(device_, VX_DCR_BASE_STARTUP_ARG0, &arg), 0);
  EXPECT_GE(arg, 0x10000u);
  ::testing::internal::CaptureStderr();
  EXPECT_NE(vx_dcr_write(device_, 0x7FF, 1), 0);
  ::testing::internal::GetCapturedStderr();
}

TEST_F(HostApi, KernelStoreIntoReadOnlyBufferIsAnAclFault) {
  std::string errors;
  EXPECT_NE(run_vecadd(40, VX_MEM_READ, 1, &errors), 0);
  EXPECT_THAT(errors, HasSubstr("acl_violation"));
  EXPECT_THAT(errors, HasSubstr("vecadd/kernel.cpp"));  // the source line of the store
  // The device stays usable after a fault.
  EXPECT_EQ(run_vecadd(40, VX_MEM_WRITE, 2, &errors), 0) << errors;
}

TEST_F(HostApi, MemAccessChangesWhatTheKernelMayDo) {
  const uint32_t n = 64;
  std::vector<float> x(n, 2.0f), y(n, 1.0f);
  vx_buffer_h X = alloc(n * 4, VX_MEM_READ), Y = alloc(n * 4, VX_MEM_READ_WRITE);
  ASSERT_EQ(vx_copy_to_dev(X, x.data(), 0, n * 4), 0);
  ASSERT_EQ(vx_copy_to_dev(Y, y.data(), 0, n * 4), 0);
  vx_buffer_h kernel = upload(example_kernel("saxpy"));
  SaxpyArgs args{n, 3.0f, address(X), address(Y)};
  vx_buffer_h arg_buffer = upload_args(&args, sizeof args);

  std::string errors;
  ASSERT_EQ(vx_mem_access(Y, 128, 4, VX_MEM_READ), 0);  // one element read-only
  EXPECT_NE(launch(kernel, arg_buffer, &errors), 0);
  EXPECT_THAT(errors, HasSubstr("acl_violation"));
  ASSERT_EQ(vx_mem_access(Y, 0, n * 4, VX_MEM_WRITE), 0);  // now write-only: the load of y faults
  EXPECT_NE(launch(kernel, arg_buffer, &errors), 0);
  EXPECT_THAT(errors, HasSubstr("acl_violation"));
  ASSERT_EQ(vx_mem_access(Y, 0, n * 4, VX_MEM_READ_WRITE), 0);
  ASSERT_EQ(vx_copy_to_dev(Y, y.data(), 0, n * 4), 0);
  EXPECT_EQ(launch(kernel, arg_buffer, &errors), 0) << errors;
  std::vector<float> out(n);
  ASSERT_EQ(vx_copy_from_dev(out.data(), Y, 0, n * 4), 0);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(out[i], 7.0f) << i;
  ::testing::internal::CaptureStderr();
  EXPECT_NE(vx_mem_access(Y, 200, 100, VX_MEM_READ), 0);
  EXPECT_NE(vx_mem_access(Y, 0, 4, 0), 0);
  ::testing::internal::GetCapturedStderr();
}

TEST_F(HostApi, KernelUploadsAcceptVxbinAndElfAndRejectGarbage) {
  // .elf and .vxbin of the same kernel, by bytes.
  for (const char* ext : {".elf", ".vxbin"}) {
    std::ifstream in(example_kernel("vecadd", ext), std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty());
    ASSERT_EQ(vx_upload_kernel_bytes(device_, bytes.data(), bytes.size(), &kernel_), 0) << ext;
    EXPECT_EQ(run_vecadd(33, VX_MEM_WRITE, 9), 0) << ext;
    // The image occupies its link range: a second copy cannot be placed until it is freed.
    vx_buffer_h second = nullptr;
    ::testing::internal::CaptureStderr();
    EXPECT_NE(vx_upload_kernel_bytes(device_, bytes.data(), bytes.size(), &second), 0);
    EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("overlaps"));
    uint64_t base = 0;
    ASSERT_EQ(vx_mem_address(kernel_, &base), 0);
    EXPECT_EQ(base, 0x80000000u);
    ASSERT_EQ(vx_mem_free(kernel_), 0);
    kernel_ = nullptr;
  }
  std::vector<uint8_t> garbage(200);
  std::mt19937 rng(3);
  for (auto& byte : garbage) byte = static_cast<uint8_t>(rng());
  garbage[0] = 0x7F;  // ELF-like start, broken rest
  garbage[1] = 'E';
  garbage[2] = 'L';
  garbage[3] = 'F';
  vx_buffer_h bad = nullptr;
  ::testing::internal::CaptureStderr();
  EXPECT_NE(vx_upload_kernel_bytes(device_, garbage.data(), garbage.size(), &bad), 0);
  EXPECT_NE(vx_upload_kernel_bytes(device_, garbage.data(), 0, &bad), 0);
  EXPECT_NE(vx_upload_kernel_file(device_, "no/such/kernel.vxbin", &bad), 0);
  std::string errors = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(errors, HasSubstr("no/such/kernel.vxbin"));
  EXPECT_THAT(errors, HasSubstr("kernel image"));
  // Nothing was left reserved by the failed uploads.
  uint64_t used = 0;
  ASSERT_EQ(vx_mem_info(device_, nullptr, &used), 0);
  EXPECT_EQ(used, 0u);
}

TEST_F(HostApi, StartNeedsAKernelBufferAndAnIdleDevice) {
  vx_buffer_h data = alloc(64, VX_MEM_READ);
  ::testing::internal::CaptureStderr();
  EXPECT_NE(vx_start(device_, data, nullptr), 0);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("expected a kernel buffer"));

  // A long launch: tiled SGEMM 96x96 on one core.
  const uint32_t n = 96, tile = 4;
  vx_buffer_h A = alloc(n * n * 4, VX_MEM_READ), B = alloc(n * n * 4, VX_MEM_READ), C = alloc(n * n * 4, VX_MEM_WRITE);
  std::vector<float> ones(n * n, 1.0f);
  ASSERT_EQ(vx_copy_to_dev(A, ones.data(), 0, n * n * 4), 0);
  ASSERT_EQ(vx_copy_to_dev(B, ones.data(), 0, n * n * 4), 0);
  vx_buffer_h kernel = upload(example_kernel("sgemm_tiled"));
  TiledArgs args{{n / tile, n / tile}, {tile, tile}, n, tile, address(A), address(B), address(C)};
  vx_buffer_h arg_buffer = upload_args(&args, sizeof args);
  ASSERT_EQ(vx_start(device_, kernel, arg_buffer), 0);
  ::testing::internal::CaptureStderr();
  const int copy_while_running = vx_copy_to_dev(A, ones.data(), 0, 4);
  const int start_while_running = vx_start(device_, kernel, arg_buffer);
  const int early = vx_ready_wait(device_, 0);
  std::string errors = ::testing::internal::GetCapturedStderr();
  if (early != 0) {  // still running (it takes ~10^7 instructions), as intended
    EXPECT_NE(copy_while_running, 0);
    EXPECT_NE(start_while_running, 0);
    EXPECT_THAT(errors, HasSubstr("still running"));
    EXPECT_THAT(errors, HasSubstr("call vx_ready_wait"));
  }
  ASSERT_EQ(vx_ready_wait(device_, VX_MAX_TIMEOUT), 0);
  std::vector<float> c(n * n);
  ASSERT_EQ(vx_copy_from_dev(c.data(), C, 0, n * n * 4), 0);
  for (float v : c) ASSERT_EQ(v, float(n));
}

TEST_F(HostApi, KernelExitCodeReachesTheHost) {
  // A block larger than a core: vx_spawn_threads returns -1, main returns it.
  vx_buffer_h kernel = upload(example_kernel("sgemm_tiled"));
  vx_buffer_h C = alloc(64, VX_MEM_WRITE);
  TiledArgs args{{1, 1}, {8, 8}, 8, 8, address(C), address(C), address(C)};  // 64 threads > 16
  vx_buffer_h arg_buffer = upload_args(&args, sizeof args);
  std::string errors;
  EXPECT_EQ(launch(kernel, arg_buffer, &errors), -1);
  EXPECT_THAT(errors, HasSubstr("exited with code -1"));
  // The portable way (Vortex's vx_ready_wait returns 0): slot 1 of core 0's counter block.
  uint64_t exit_slot = 0;
  ASSERT_EQ(vx_mpm_query(device_, VX_CSR_MPM_RESERVED, 0, &exit_slot), 0);
  EXPECT_EQ(int32_t(uint32_t(exit_slot)), -1);
  // The next launch's exit stores 0 again.
  ASSERT_EQ(vx_mem_free(kernel), 0);
  EXPECT_EQ(run_vecadd(9, VX_MEM_WRITE, 9), 0);
  ASSERT_EQ(vx_mpm_query(device_, VX_CSR_MPM_RESERVED, 0, &exit_slot), 0);
  EXPECT_EQ(uint32_t(exit_slot), 0u);
}

}  // namespace
