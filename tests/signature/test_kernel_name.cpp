// Kernel-name reader on the names met on the H200 and the documented CUTLASS schemes.
#include <gtest/gtest.h>

#include <array>

#include "signature/kernel_name.h"

namespace vxsynth::signature {
namespace {

std::string val(const KernelNameReading& r, const char* key) { return r.value(key).value_or("<none>"); }

TEST(KernelName, NvjetBf16) {
  const auto r = read_kernel_name("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  EXPECT_EQ(r.family, "nvjet");
  EXPECT_EQ(r.engine_from_name(), EngineClass::kTensorCore);
  EXPECT_EQ(val(r, "input_type"), "bf16");
  EXPECT_EQ(val(r, "accumulator_type"), "f32");
  EXPECT_EQ(val(r, "output_type"), "bf16");
  EXPECT_EQ(val(r, "tile"), "256x128x64");
  EXPECT_EQ(val(r, "stages"), "4");
  EXPECT_EQ(val(r, "layout"), "nn");
  EXPECT_EQ(r.find("tile")->provenance, Provenance::kInferred);
}

TEST(KernelName, CublasXmmaTf32Wgmma) {
  const auto r = read_kernel_name(
      "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas");
  EXPECT_EQ(r.family, "cublas_xmma");
  EXPECT_EQ(r.engine_from_name(), EngineClass::kTensorCore);
  EXPECT_EQ(val(r, "input_type"), "f32");
  EXPECT_EQ(val(r, "math_type"), "tf32");
  EXPECT_EQ(val(r, "accumulator_type"), "f32");
  EXPECT_EQ(val(r, "tile"), "128x256x32");
  EXPECT_EQ(val(r, "warpgroups"), "2x1x1");
  EXPECT_EQ(val(r, "layout"), "nn");
}

TEST(KernelName, CublasXmmaFfmaIsSimt) {
  const auto r = read_kernel_name(
      "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_split_k_kernel__5x_cublas");
  EXPECT_EQ(r.engine_from_name(), EngineClass::kSimt);
  EXPECT_EQ(val(r, "warps"), "1x4x1");
  EXPECT_EQ(val(r, "stages"), "3");
  EXPECT_EQ(val(r, "split_k"), "yes");
  EXPECT_EQ(val(r, "layout"), "tn");
}

TEST(KernelName, CudnnImplicitGemmTf32) {
  const auto r = read_kernel_name(
      "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x64x32_stage5_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn");
  EXPECT_EQ(r.family, "cudnn_xmma");
  EXPECT_EQ(r.engine_from_name(), EngineClass::kTensorCore);
  EXPECT_EQ(val(r, "op"), "fprop");
  EXPECT_EQ(val(r, "math_type"), "tf32");
  EXPECT_EQ(val(r, "layout"), "nhwckrsc_nchw");
  EXPECT_EQ(val(r, "mma_shape"), "m16n8k8");
  EXPECT_EQ(val(r, "tile"), "128x64x32");
}

TEST(KernelName, Sm90Bf16Conv) {
  const auto r = read_kernel_name(
      "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_warpgroupsize1x1x1_g1_execute_segment_k_off_kernel__5x_cudnn");
  EXPECT_EQ(val(r, "input_type"), "bf16");
  EXPECT_EQ(val(r, "accumulator_type"), "f32");
  EXPECT_EQ(r.engine_from_name(), EngineClass::kTensorCore);
}

TEST(KernelName, CutlassDocumentedNames) {
  auto r = read_kernel_name("cutlass_80_tensorop_s1688gemm_f16_256x128_32x3_nn_align8");
  EXPECT_EQ(r.family, "cutlass2");
  EXPECT_EQ(r.engine_from_name(), EngineClass::kTensorCore);
  EXPECT_EQ(val(r, "accumulator_type"), "f32");
  EXPECT_EQ(val(r, "mma_shape"), "m16n8k8");
  EXPECT_EQ(val(r, "input_type"), "f16");
  EXPECT_EQ(val(r, "tile"), "256x128x32");
  EXPECT_EQ(val(r, "stages"), "3");
  EXPECT_EQ(val(r, "alignment"), "8");
  EXPECT_EQ(r.find("tile")->provenance, Provenance::kDocumented);

  r = read_kernel_name("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(T1::Params)");
  EXPECT_EQ(r.engine_from_name(), EngineClass::kSimt);
  EXPECT_EQ(val(r, "input_type"), "f32");
  EXPECT_EQ(val(r, "tile"), "256x128x8");

  r = read_kernel_name("cutlass_80_tensorop_f16_s16816gemm_relu_f16_128x128_32x4_tn_align8");
  EXPECT_EQ(val(r, "mma_shape"), "m16n8k16");
  EXPECT_EQ(val(r, "layout"), "tn");

  // Seen in pi0 on the H200: a WMMA bf16 batched GEMM.
  r = read_kernel_name("void cutlass::Kernel2<cutlass_75_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1_nn_align1>(T1::Params)");
  EXPECT_EQ(val(r, "mma_shape"), "m16n16k16");
  EXPECT_EQ(val(r, "input_type"), "bf16");
  EXPECT_EQ(val(r, "accumulator_type"), "f32");
  EXPECT_FALSE(r.find("math_type"));
  int engines = 0;
  for (const auto& p : r.properties) engines += p.key == "engine";
  EXPECT_EQ(engines, 1);
  r = read_kernel_name("cutlass_tensorop_s1688tf32gemm_256x128_16x3_tn_align4");
  EXPECT_EQ(val(r, "math_type"), "tf32");
  EXPECT_EQ(val(r, "mma_shape"), "m16n8k8");

  r = read_kernel_name("cutlass3x_sm90_tensorop_gemm_f16_f16_f32_f16_f16_128x128x64_2x1x1_0_ntn_align8_warpspecialized_cooperative_epi_tma");
  EXPECT_EQ(r.family, "cutlass3");
  EXPECT_EQ(val(r, "input_type"), "f16");
  EXPECT_EQ(val(r, "accumulator_type"), "f32");
  EXPECT_EQ(val(r, "tile"), "128x128x64");
  EXPECT_EQ(val(r, "layout"), "nt");
}

TEST(KernelName, LegacyAndOtherFamilies) {
  EXPECT_EQ(read_kernel_name("ampere_sgemm_128x64_tn").engine_from_name(), EngineClass::kSimt);
  auto r = read_kernel_name("ampere_h16816gemm_128x64_ldg8_stages_64x3_nn");
  EXPECT_EQ(r.engine_from_name(), EngineClass::kTensorCore);
  EXPECT_EQ(val(r, "accumulator_type"), "f16");
  EXPECT_EQ(val(r, "stages"), "3");
  EXPECT_EQ(read_kernel_name("void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false>(int)")
                .engine_from_name(),
            EngineClass::kSimt);
  EXPECT_EQ(read_kernel_name("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_cga1x1x1_kernel0_0")
                .engine_from_name(),
            EngineClass::kTensorCore);
  EXPECT_EQ(read_kernel_name("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>()").family,
            "pytorch_native");
  EXPECT_EQ(read_kernel_name("my_kernel").engine_from_name(), EngineClass::kUnknown);
}

TEST(Reconcile, GeometryKeepsOrDropsWarpArrangement) {
  auto r = read_kernel_name(
      "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x128x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas");
  MeasuredEvidence ev;
  ev.block_size = 128;
  reconcile(r, ev);
  EXPECT_EQ(r.find("warps")->check, Agreement::kAgrees);
  EXPECT_EQ(val(r, "warps"), "1x4x1");
  ev.block_size = 256;
  reconcile(r, ev);
  EXPECT_EQ(r.find("warps")->check, Agreement::kContradicted);
  EXPECT_FALSE(r.value("warps"));  // a contradicted reading is unknown
}

TEST(Reconcile, TileAgainstGridAndProblemShape) {
  // fp32 bmm (8, 816, 816) @ (8, 816, 256): 13 x 2 tiles of 64x128, times 8 batches = 208 blocks.
  auto r = read_kernel_name(
      "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x128x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas");
  MeasuredEvidence ev;
  ev.grid_size = 208;
  ev.problem = MeasuredEvidence::Problem{816, 256, 8};
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kAgrees);
  ev.grid_size = 300;  // more blocks than tiles, not a multiple of them
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kContradicted);
}

TEST(Reconcile, PersistentAndClusterLaunches) {
  // pi0's Gemma MLP (816 x 16384) ran as a persistent kernel: 132 blocks for 427 tiles.
  auto r = read_kernel_name("nvjet_sm90_tst_128x272_64x4_2x1_v_bz_coopA_TNT");
  EXPECT_EQ(val(r, "cluster"), "2x1");
  MeasuredEvidence ev;
  ev.grid_size = 132;
  ev.problem = MeasuredEvidence::Problem{816, 16384, 1};
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kUnchecked);
  EXPECT_NE(r.find("tile")->check_note.find("persistent"), std::string::npos);
  // pi0 expert linear 51 x 4096 with 48x64 tiles and a 4x1 cluster: 86 tiles rounded up to 88.
  r = read_kernel_name("nvjet_sm90_tst_48x64_64x15_4x1_v_bz_TNN");
  ev.grid_size = 88;
  ev.problem = MeasuredEvidence::Problem{51, 4096, 1};
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kAgrees);
  ev.grid_size = 90;  // neither a multiple nor the cluster round-up: contradicted
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kContradicted);
}

TEST(Reconcile, AGridThatIsMerelyAMultipleOfTheTilesDoesNotAgree) {
  // pi0's bias linear (nvjet 48x64, cluster 4x2) ran as (8, 12, 1) = 96 blocks. Given the shape of
  // an unrelated batched matmul (51 x 256, batch 8: 48 tiles one way round), 96 = 2 x 48 used to
  // count as a split factor: "agrees". A split-K must be visible as a whole grid dimension.
  auto r = read_kernel_name("nvjet_sm90_tst_48x64_64x15_4x2_h_bz_bias_TNN");
  MeasuredEvidence ev;
  ev.grid_size = 96;
  ev.grid_dims = std::array<long long, 3>{8, 12, 1};
  ev.problem = MeasuredEvidence::Problem{51, 256, 8};
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kContradicted) << r.find("tile")->check_note;
  // Its own problem (256 x 1152): 24 x 4 = 96 tiles exactly.
  ev.problem = MeasuredEvidence::Problem{256, 1152, 1};
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kAgrees);
  EXPECT_NE(r.find("tile")->check_note.find("exactly the tile count"), std::string::npos) << r.find("tile")->check_note;
}

TEST(Reconcile, SplitKIsOneWholeGridDimension) {
  // ACT's FFN linear2 (302 x 512, K = 3200): CUTLASS SIMT 128x64 tiles, grid (20, 1, 4): 20 tiles
  // times 4 K-slices in z.
  auto r = read_kernel_name("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_tn_align1>(T1::Params)");
  MeasuredEvidence ev;
  ev.grid_size = 80;
  ev.grid_dims = std::array<long long, 3>{20, 1, 4};
  ev.problem = MeasuredEvidence::Problem{302, 512, 1};
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kAgrees);
  EXPECT_NE(r.find("tile")->check_note.find("split-K 4 in grid z = 4"), std::string::npos) << r.find("tile")->check_note;
  // The same 80 blocks as (40, 2, 1): no dimension holds a split of 4.
  ev.grid_dims = std::array<long long, 3>{40, 2, 1};
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kContradicted);
  // Batch and split sharing z: batch 3, split 2 -> z = 6 over 20 x 1 tiles per batch.
  ev.problem = MeasuredEvidence::Problem{302, 512, 3};
  ev.grid_size = 120;
  ev.grid_dims = std::array<long long, 3>{20, 1, 6};
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kAgrees) << r.find("tile")->check_note;
  // No grid dimensions known: a split cannot be confirmed.
  ev.grid_dims.reset();
  reconcile(r, ev);
  EXPECT_EQ(r.find("tile")->check, Agreement::kContradicted);
}

TEST(Reconcile, CountersDecideTheEngineAndTypes) {
  auto r = read_kernel_name("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  MeasuredEvidence ev;
  ev.tensor_ops_bf16 = 1.7e10;
  ev.tensor_ops_tf32 = 0;
  ev.gmma_instructions = 1000;
  reconcile(r, ev);
  EXPECT_EQ(r.find("engine")->check, Agreement::kAgrees);
  EXPECT_EQ(r.find("input_type")->check, Agreement::kAgrees);
  EXPECT_EQ(decide_engine(r, ev).engine, EngineClass::kTensorCore);

  // A name that says tensor core on a kernel with no tensor math: the counters win.
  auto wrong = read_kernel_name("cutlass_80_tensorop_s1688gemm_f16_256x128_32x3_nn_align8");
  MeasuredEvidence simt;
  simt.tensor_ops_bf16 = 0;
  simt.tensor_ops_fp16 = 0;
  simt.gmma_instructions = 0;
  simt.fp32_thread_instructions = 1e9;
  reconcile(wrong, simt);
  EXPECT_EQ(wrong.find("engine")->check, Agreement::kContradicted);
  const auto verdict = decide_engine(wrong, simt);
  EXPECT_EQ(verdict.engine, EngineClass::kSimt);
  EXPECT_NE(verdict.basis.find("disagrees"), std::string::npos);
  // Without counters, the name's class is used and says so.
  const auto name_only = decide_engine(read_kernel_name("ampere_sgemm_128x64_tn"), MeasuredEvidence{});
  EXPECT_EQ(name_only.engine, EngineClass::kSimt);
  EXPECT_NE(name_only.basis.find("name only"), std::string::npos);
}

}  // namespace
}  // namespace vxsynth::signature
