#include <gtest/gtest.h>

#include "common/error.h"
#include "gpu/job.h"
#include "gpu/problem.h"
#include "ops/op_spec.h"
#include "test_util.h"

namespace vxsynth::gpu {
namespace {

TEST(Problem, LinearWithBiasAndActivation) {
  const auto spec = ops::make_linear("l", ops::PrecisionPath::bf16, 37, 53, 71, true, ops::Activation::gelu_tanh);
  const auto p = make_problem(spec);
  EXPECT_EQ(p.abi_version, VXSYNTH_CANDIDATE_ABI_VERSION);
  EXPECT_EQ(p.op_kind, VXSYNTH_OP_LINEAR);
  EXPECT_EQ(p.dtype, VXSYNTH_DTYPE_BF16);
  EXPECT_EQ(p.precision, VXSYNTH_PRECISION_BF16);
  EXPECT_EQ(p.has_bias, 1);
  EXPECT_EQ(p.activation, VXSYNTH_ACT_GELU_TANH);
  EXPECT_EQ(p.m, 37);
  EXPECT_EQ(p.n, 53);
  EXPECT_EQ(p.k, 71);
  EXPECT_EQ(p.batch_rank, 0);
  EXPECT_EQ(p.batch_count, 1);
}

TEST(Problem, Tf32KeepsFp32Storage) {
  const auto p = make_problem(ops::make_linear("l", ops::PrecisionPath::tf32, 2, 3, 4));
  EXPECT_EQ(p.dtype, VXSYNTH_DTYPE_FP32);
  EXPECT_EQ(p.precision, VXSYNTH_PRECISION_TF32);
}

TEST(Problem, MatmulBroadcastStrides) {
  // A [2,1,M,K] (stored transposed), B [3,K,N] -> out [2,3,M,N].
  const auto spec = ops::make_matmul("mm", ops::PrecisionPath::fp32, {2, 1}, {3}, 19, 23, 29, true, false);
  const auto p = make_problem(spec);
  EXPECT_EQ(p.op_kind, VXSYNTH_OP_MATMUL);
  EXPECT_EQ(p.transpose_a, 1);
  EXPECT_EQ(p.transpose_b, 0);
  ASSERT_EQ(p.batch_rank, 2);
  EXPECT_EQ(p.batch[0], 2);
  EXPECT_EQ(p.batch[1], 3);
  EXPECT_EQ(p.batch_count, 6);
  EXPECT_EQ(p.a_batch_stride[0], 19 * 29);  // A's first dim walks whole matrices
  EXPECT_EQ(p.a_batch_stride[1], 0);        // size 1: broadcast
  EXPECT_EQ(p.b_batch_stride[0], 0);        // B has no such dim: broadcast
  EXPECT_EQ(p.b_batch_stride[1], 29 * 23);
}

TEST(Problem, TooManyBatchDimsIsAnInputError) {
  const auto spec = ops::make_matmul("mm", ops::PrecisionPath::fp32, {2, 2, 2, 2, 2}, {2, 2, 2, 2, 2}, 4, 4, 4);
  EXPECT_THROW(make_problem(spec, "deep.json"), InputError);
}

TEST(Problem, Conv2dAndConv1d) {
  const auto c2 = ops::make_conv("c2", ops::PrecisionPath::tf32, 2, 6, 9, {11, 13}, {3, 2}, {2, 1}, {1, 1},
                                 {1, 2}, 3, true, ops::ConvLayout::channels_last, ops::Activation::relu);
  const auto p = make_problem(c2);
  EXPECT_EQ(p.op_kind, VXSYNTH_OP_CONV2D);
  EXPECT_EQ(p.layout, VXSYNTH_LAYOUT_CHANNELS_LAST);
  EXPECT_EQ(p.n_img, 2);
  EXPECT_EQ(p.c_in, 6);
  EXPECT_EQ(p.k_out, 9);
  EXPECT_EQ(p.groups, 3);
  EXPECT_EQ(p.h, 11);
  EXPECT_EQ(p.w, 13);
  EXPECT_EQ(p.r, 3);
  EXPECT_EQ(p.s, 2);
  EXPECT_EQ(p.stride_h, 2);
  EXPECT_EQ(p.stride_w, 1);
  EXPECT_EQ(p.dilation_w, 2);
  EXPECT_EQ(p.p, (11 + 2 - 2 - 1) / 2 + 1);
  EXPECT_EQ(p.q, (13 + 2 - 2 * 1 - 1) / 1 + 1);
  EXPECT_EQ(p.activation, VXSYNTH_ACT_RELU);

  const auto c1 = ops::make_conv("c1", ops::PrecisionPath::bf16, 3, 12, 18, {41}, {5}, {2}, {2}, {1}, 3);
  const auto q = make_problem(c1);
  EXPECT_EQ(q.op_kind, VXSYNTH_OP_CONV1D);
  EXPECT_EQ(q.h, 1);
  EXPECT_EQ(q.r, 1);
  EXPECT_EQ(q.p, 1);
  EXPECT_EQ(q.stride_h, 1);
  EXPECT_EQ(q.pad_h, 0);
  EXPECT_EQ(q.w, 41);
  EXPECT_EQ(q.s, 5);
  EXPECT_EQ(q.q, (41 + 4 - 4 - 1) / 2 + 1);
  EXPECT_EQ(c1.output().shape, (ops::Shape{3, 18, q.q}));
}

TEST(Problem, LayoutTransformNamesTheInputLayout) {
  const auto w = make_problem(ops::make_transform("w", ops::PrecisionPath::fp32, 2048, 2048, {5},
                                                  ops::ConvLayout::channels_first, ops::ConvLayout::channels_last, "weight"));
  EXPECT_EQ(w.op_kind, VXSYNTH_OP_LAYOUT_TRANSFORM);
  EXPECT_EQ(w.layout, VXSYNTH_LAYOUT_CHANNELS_FIRST);
  EXPECT_EQ(w.dtype, VXSYNTH_DTYPE_FP32);
  EXPECT_EQ(w.n_img, 2048);
  EXPECT_EQ(w.c_in, 2048);
  EXPECT_EQ(w.h, 1);
  EXPECT_EQ(w.w, 5);
  EXPECT_EQ(w.has_bias, 0);
  const auto a = make_problem(ops::make_transform("a", ops::PrecisionPath::bf16, 3, 37, {5, 9},
                                                  ops::ConvLayout::channels_last, ops::ConvLayout::channels_first));
  EXPECT_EQ(a.layout, VXSYNTH_LAYOUT_CHANNELS_LAST);
  EXPECT_EQ(a.dtype, VXSYNTH_DTYPE_BF16);
  EXPECT_EQ(a.precision, VXSYNTH_PRECISION_BF16);
  EXPECT_EQ(a.h, 5);
  EXPECT_EQ(a.w, 9);
  const Json j = problem_to_json(a);
  EXPECT_EQ(j["op_kind"], VXSYNTH_OP_LAYOUT_TRANSFORM);
  EXPECT_EQ(j["c_in"], 37);
  EXPECT_FALSE(j.contains("k_out"));
}

TEST(Job, RoundTripAndErrors) {
  Job job;
  job.mode = JobMode::profile;
  job.out_dir = "/tmp/x";
  job.seed = 12345678901234ull;
  job.repeat = 5;
  job.with_reference = true;
  job.ops = {{"lin", "/a/lin.json"}};
  job.candidates = {{"k", "/a/k.cu", "/c/abc.so", {}}};
  const Job back = Job::from_json(job.to_json(), "job.json");
  EXPECT_EQ(back.mode, JobMode::profile);
  EXPECT_EQ(back.seed, job.seed);
  EXPECT_EQ(back.repeat, 5);
  EXPECT_TRUE(back.with_reference);
  ASSERT_EQ(back.candidates.size(), 1u);
  EXPECT_EQ(back.candidates[0].object, "/c/abc.so");

  Json bad = job.to_json();
  bad["mode"] = "benchmark";
  try {
    Job::from_json(bad, "job.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "mode");
  }
  bad = job.to_json();
  bad["schema"] = "vxsynth.gpu-job/2";
  EXPECT_THROW(Job::from_json(bad, "job.json"), InputError);
  bad = job.to_json();
  bad["repeat"] = 0;
  EXPECT_THROW(Job::from_json(bad, "job.json"), InputError);
}

TEST(Job, CandidatesRunOnlyOnTheOpsTheyName) {
  // A refine round's job holds every chain's op; each candidate runs on its own chain's only.
  Job job;
  job.ops = {{"act-1-linear", "/a/1.json"}, {"act-2-linear", "/a/2.json"}};
  job.candidates = {{"k1", "/a/k1.cu", "/c/1.so", {"act-1-linear"}}, {"any", "/a/any.cu", "/c/2.so", {}}};
  const Json j = job.to_json();
  EXPECT_FALSE(j["candidates"][1].contains("ops"));  // no list: every op, as before the field existed
  const Job back = Job::from_json(j, "job.json");
  ASSERT_EQ(back.candidates.size(), 2u);
  EXPECT_TRUE(back.candidates[0].runs_on("act-1-linear"));
  EXPECT_FALSE(back.candidates[0].runs_on("act-2-linear"));
  EXPECT_TRUE(back.candidates[1].runs_on("act-1-linear"));
  EXPECT_TRUE(back.candidates[1].runs_on("act-2-linear"));
  Json bad = j;
  bad["candidates"][0]["ops"] = Json::array({"act-3-linear"});
  try {
    Job::from_json(bad, "job.json");
    FAIL() << "an op the job does not have was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "candidates.k1.ops");
    EXPECT_NE(std::string(e.what()).find("act-3-linear"), std::string::npos) << e.what();
  }
}

TEST(JobResult, RoundTrip) {
  JobResult r;
  r.device = "H200";
  CheckRecord c;
  c.op = "lin";
  c.candidate = "k";
  c.status = "passed";
  c.seed = 7;
  c.equivalence = Json{{"failed", 0}};
  r.checks.push_back(c);
  r.vendors.push_back({"lin", "cuBLAS", "fp32", {"sgemm"}, "cupti", Json::object()});
  r.launches.push_back({"k@lin", "lin", "k", 0, 14, 7});
  r.platform.gpu = "NVIDIA H100 80GB HBM3";
  r.platform.sm_count = 132;
  r.platform.cublas = "13.1.0";
  const JobResult back = JobResult::from_json(r.to_json(), "result.json");
  EXPECT_EQ(back.platform.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(back.platform.cublas, "13.1.0");
  // A result written before platforms were recorded: its device line says the GPU.
  Json old = r.to_json();
  old.erase("platform");
  old["device"] = "NVIDIA H200 (sm_90, 132 SMs)";
  EXPECT_EQ(JobResult::from_json(old, "result.json").platform.gpu, "NVIDIA H200");
  ASSERT_EQ(back.checks.size(), 1u);
  EXPECT_EQ(back.checks[0].equivalence["failed"], 0);
  ASSERT_EQ(back.launches.size(), 1u);
  EXPECT_EQ(back.launches[0].stream_id, 14u);
  EXPECT_EQ(back.vendors[0].kernels[0], "sgemm");
}

}  // namespace
}  // namespace vxsynth::gpu
