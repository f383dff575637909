// Platforms: which GPU a profile ran on, read from every file that records one.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/error.h"
#include "common/json_io.h"
#include "signature/platform.h"
#include "signature/signature.h"

namespace vxsynth::signature {
namespace {

const Platform kH100{"NVIDIA H100 80GB HBM3", 132, "9.0", 85045559296, 1980000, 2619000, 5120, "580.159.04", "13.0", "13.1.0",
                     "9.14.0"};

TEST(Platform, IdsFollowTheCapturesTable) {
  EXPECT_EQ(platform_id("NVIDIA H200"), "h200");
  EXPECT_EQ(platform_id("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(platform_id("Orin (nvgpu)"), "jetson-agx-orin");
  EXPECT_EQ(platform_id("NVIDIA A100-SXM4-80GB"), "a100-sxm4-80gb");
  EXPECT_EQ(platform_id(""), "unknown");
  EXPECT_EQ(kH100.id(), "h100");
}

TEST(Platform, SameGpuIsOneNameAndOneSmCount) {
  Platform h200{"NVIDIA H200", 132, "", 0, 0, 0, 0, "", "", "", ""};
  EXPECT_FALSE(same_gpu(kH100, h200));
  Platform other_software = kH100;
  other_software.driver = "570.1";
  other_software.cublas = "12.9.0";
  EXPECT_TRUE(same_gpu(kH100, other_software));  // one GPU model, another software stack
  Platform fewer_sms = kH100;
  fewer_sms.sm_count = 114;
  EXPECT_FALSE(same_gpu(kH100, fewer_sms));
  Platform name_only;
  name_only.gpu = kH100.gpu;
  EXPECT_TRUE(same_gpu(kH100, name_only));  // the SM count unknown on one side
  EXPECT_EQ(describe(h200), "NVIDIA H200 (132 SMs)");
  EXPECT_EQ(describe(Platform{}), "an unrecorded GPU");
}

TEST(Platform, JsonRoundTripsAndReadsTheCapturesBlock) {
  const Json j = platform_to_json(kH100);
  EXPECT_EQ(j["id"], "h100");
  const Platform back = platform_from_json(j, "job.json", "platform");
  EXPECT_EQ(back.gpu, kH100.gpu);
  EXPECT_EQ(back.memory_bytes, kH100.memory_bytes);
  EXPECT_EQ(back.sm_clock_khz, kH100.sm_clock_khz);
  EXPECT_EQ(back.cudnn, "9.14.0");
  // reference.json's block (the capture): cuda and cudnn under its own names and types.
  const Json capture = read_json_file("../suite/vx-robotics/h200/act-1-linear/reference.json")["platform"];
  const Platform ref = platform_from_json(capture, "reference.json", "platform");
  EXPECT_EQ(ref.gpu, "NVIDIA H200");
  EXPECT_EQ(ref.sm_count, 132);
  EXPECT_EQ(ref.cuda_runtime, "13.0");
  EXPECT_EQ(ref.cudnn, "91900");
  // Bad blocks name the file and the field.
  for (const auto& [bad, field] : {std::pair{Json{{"sm_count", 132}}, "platform.gpu"}, std::pair{Json{{"gpu", "x"}, {"sm_count", -1}}, "platform.sm_count"},
                                   std::pair{Json{{"gpu", 7}}, "platform.gpu"}, std::pair{Json::array(), "platform"}}) {
    try {
      platform_from_json(bad, "runs/job.json", "platform");
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("runs/job.json"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
}

TEST(Platform, LegacyOriginsNameTheirDevice) {
  const Platform p = platform_from_origin("NVIDIA H200 (sm_90, 132 SMs), /tmp/vxsynth-suite-run/worker-0/work/round-3/profile");
  EXPECT_EQ(p.gpu, "NVIDIA H200");
  EXPECT_EQ(p.sm_count, 132);
  EXPECT_EQ(p.compute_capability, "9.0");
  EXPECT_EQ(platform_from_origin("replay of data/store (NVIDIA H100 80GB HBM3 (sm_90, 132 SMs), x)").gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(platform_from_origin("replay").known());
  EXPECT_FALSE(platform_from_origin("").known());
}

TEST(Platform, SignatureFilesCarryTheirs) {
  SignatureFile f{"profile.csv", {}, kH100};
  KernelSignature k;
  k.name = "gemm";
  f.kernels.push_back(k);
  const std::string path = ::testing::TempDir() + "platform-signature.json";
  write_json_file(path, f.to_json());
  EXPECT_EQ(read_platform(path).gpu, kH100.gpu);
  EXPECT_EQ(read_platform(path + "#gemm").sm_count, 132);
  EXPECT_EQ(read_platform("../suite/vx-robotics/h200/act-1-linear/reference.json").gpu, "NVIDIA H200");
  EXPECT_FALSE(read_platform("data/h200/ncu-probe-fp32-matmul-linear-conv.csv").known());  // a CSV names none
  f.platform = {};
  write_json_file(path, f.to_json());
  EXPECT_FALSE(read_json_file(path).contains("platform"));
  EXPECT_FALSE(read_platform(path).known());
}

}  // namespace
}  // namespace vxsynth::signature
