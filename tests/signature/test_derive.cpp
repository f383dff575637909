// Metric derivation from real H200 counters, checked against hand computations from the CSV.
#include <gtest/gtest.h>

#include "common/error.h"
#include "csv_util.h"
#include "signature/derive.h"
#include "signature/kernel_source.h"
#include "common/json_io.h"

#include <filesystem>
#include <set>

namespace vxsynth::signature {
namespace {

using testing::add_column;
using testing::read_text;
using testing::set_column;

const char* kBf16 = "data/h200/ncu-probe-bf16-matmul-linear-conv.csv";
const char* kFp32 = "data/h200/ncu-probe-fp32-matmul-linear-conv.csv";

double v(const KernelSignature& k, MetricId id) {
  const auto& x = k.values[index_of(id)];
  EXPECT_TRUE(x.has_value()) << metric_info(id).key << ": " << k.unmeasured_reason[index_of(id)];
  return x.value_or(-1);
}

// The probe fixtures lack the counters of three metrics (they predate the full list).
DeriveOptions partial() {
  DeriveOptions o;
  o.partial = true;
  return o;
}

// The counters the fixtures lack, added with values chosen per row so every formula is exercised.
std::string with_full_counter_list(const std::string& csv) {
  std::string s = csv;
  s = add_column(s, "smsp__sass_inst_executed_op_global_ld.sum", "inst", {"0", "4,096", "0", "12,000"});
  s = add_column(s, "smsp__sass_inst_executed_op_global_atom.sum", "inst", {"0", "17", "0", "3"});
  s = add_column(s, "smsp__sass_inst_executed_op_global_red.sum", "inst", {"0", "1,000", "0", "131,072"});
  s = add_column(s, "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "inst", {"0", "64", "0", "32"});
  s = add_column(s, "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", "inst", {"0", "8", "0", "0"});
  s = add_column(s, "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", "inst", {"0", "16", "0", "0"});
  s = add_column(s, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", "inst", {"0", "0", "0", "5"});
  s = add_column(s, "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", "inst", {"0", "0", "0", "7"});
  s = add_column(s, "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", "inst", {"0", "0", "0", "11"});
  s = add_column(s, "sm__ops_path_tensor_src_fp16.sum", "", {"0"});
  s = add_column(s, "sm__ops_path_tensor_src_tf32_dst_fp32.sum", "", {"0", "0", "0", "1,024"});
  s = add_column(s, "sm__ops_path_tensor_src_fp8.sum", "", {"0"});
  return s;
}

TEST(Derive, Bf16BatchedMatmulMatchesTheCsv) {
  const auto t = NcuTable::read_file(kBf16);
  const auto k = derive_signature(t, t.rows()[0], partial());
  EXPECT_EQ(k.name, "nvjet_sm90_tst_128x104_64x7_1x2_h_bz_NNT");
  EXPECT_EQ(k.ncu_id, "0");
  EXPECT_DOUBLE_EQ(v(k, MetricId::kL1HitRate), 0.0);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kL2HitRate), 58.39);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kComputeThroughput), 33.83);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kTensorUtilization), 46.11);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kDramBandwidth), 1604571428571.43);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kActiveLaneFraction), 31.75 / 32);  // deprecated alias of the ratio
  EXPECT_DOUBLE_EQ(v(k, MetricId::kOccupancy), 14.11);
  // Three metrics need counters the probe did not collect: unmeasured, naming them.
  EXPECT_FALSE(k.values[index_of(MetricId::kCoalescing)]);
  EXPECT_NE(k.unmeasured_reason[index_of(MetricId::kCoalescing)].find("smsp__sass_inst_executed_op_global_ld.sum"),
            std::string::npos);
  EXPECT_FALSE(k.values[index_of(MetricId::kAtomicsPerInstruction)]);
  EXPECT_FALSE(k.values[index_of(MetricId::kArithmeticIntensity)]);
  // Geometry and duration.
  ASSERT_TRUE(k.launch);
  EXPECT_EQ(k.launch->grid, (std::array<long long, 3>{2, 64, 1}));
  EXPECT_EQ(k.launch->block, (std::array<long long, 3>{384, 1, 1}));
  EXPECT_EQ(k.launch->grid_size, 128);
  EXPECT_EQ(k.launch->block_size, 384);
  EXPECT_EQ(k.launch->registers_per_thread, 168);
  EXPECT_EQ(k.launch->shared_static_bytes, 0);
  EXPECT_EQ(k.launch->shared_dynamic_bytes, 224508);
  EXPECT_DOUBLE_EQ(*k.duration_ns, 8736);
  EXPECT_EQ(k.engine, EngineClass::kTensorCore);
  EXPECT_DOUBLE_EQ(k.counters.at("lts__t_sector_hit_rate.pct"), 58.39);
}

TEST(Derive, Fp32SimtGemmMatchesTheCsv) {
  const auto t = NcuTable::read_file(kFp32);
  const auto k = derive_signature(t, t.rows()[1], partial());
  EXPECT_DOUBLE_EQ(v(k, MetricId::kL2HitRate), 82.41);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kComputeThroughput), 68.85);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kTensorUtilization), 0.0);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kDramBandwidth), 386201163757.27);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kActiveLaneFraction), 1.0);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kOccupancy), 10.39);
  EXPECT_EQ(k.launch->grid_size, 208);
  EXPECT_EQ(k.engine, EngineClass::kSimt);
}

TEST(Derive, EveryFormulaWithTheFullCounterList) {
  const auto t = NcuTable::parse(with_full_counter_list(read_text(kFp32)), "full.csv");
  const auto sigs = derive_signatures(t, DeriveOptions{});  // strict: all counters present
  ASSERT_EQ(sigs.size(), 4u);
  // Row 0: no global loads -> coalescing 0 although the ratio column says 100.
  EXPECT_DOUBLE_EQ(v(sigs[0], MetricId::kCoalescing), 0.0);
  EXPECT_DOUBLE_EQ(v(sigs[0], MetricId::kAtomicsPerInstruction), 0.0);
  // Row 0 AI: fadd 1,048,576 + 2*ffma 65,536 over dram 4,214,528 + 0 bytes.
  EXPECT_DOUBLE_EQ(v(sigs[0], MetricId::kArithmeticIntensity), (1048576.0 + 2 * 65536.0) / 4214528.0);
  // Row 1: global loads issued -> the measured bytes-per-sector percentage (0 in the CSV).
  EXPECT_DOUBLE_EQ(v(sigs[1], MetricId::kCoalescing), 0.0);
  EXPECT_DOUBLE_EQ(v(sigs[1], MetricId::kAtomicsPerInstruction), (17.0 + 1000.0) / 54490176.0);
  // ffma 1,392,115,712 x2, + 2*hadd 8 + 2*hmul 16 + 4*hfma 64 over 28,081,664 + 1,652,736 bytes.
  EXPECT_DOUBLE_EQ(v(sigs[1], MetricId::kArithmeticIntensity),
                   (2 * 1392115712.0 + 2 * 8 + 2 * 16 + 4 * 64) / (28081664.0 + 1652736.0));
  // Row 3: loads issued, ratio column 100 %.
  EXPECT_DOUBLE_EQ(v(sigs[3], MetricId::kCoalescing), 100.0);
  EXPECT_DOUBLE_EQ(v(sigs[3], MetricId::kAtomicsPerInstruction), (3.0 + 131072.0) / 119744.0);
  EXPECT_DOUBLE_EQ(v(sigs[3], MetricId::kArithmeticIntensity),
                   (1048576.0 + 2 * 65536.0 + 4 * 32 + 2 * 5 + 7 + 11 + 1024) / 4214528.0);
  for (const auto& k : sigs)
    for (const auto& m : metric_table()) EXPECT_TRUE(k.values[index_of(m.id)]) << m.key;
}

// Arithmetic intensity counts every tensor path once: bf16, fp16, tf32 and fp8 operations each
// non-zero and distinct on one row (so a path dropped, or another counted in its place, moves
// the value), checked exactly against the hand sum.
TEST(Derive, ArithmeticIntensityCountsEveryTensorPath) {
  std::string csv = with_full_counter_list(read_text(kFp32));
  csv = set_column(csv, "sm__ops_path_tensor_src_bf16_dst_fp32.sum", {"0", "0", "0", "2,000,003"});
  csv = set_column(csv, "sm__ops_path_tensor_src_fp16.sum", {"0", "0", "0", "300,007"});
  csv = set_column(csv, "sm__ops_path_tensor_src_tf32_dst_fp32.sum", {"0", "0", "0", "40,009"});
  csv = set_column(csv, "sm__ops_path_tensor_src_fp8.sum", {"0", "0", "0", "5,011"});
  const auto sigs = derive_signatures(NcuTable::parse(csv, "tensor.csv"), DeriveOptions{});
  ASSERT_EQ(sigs.size(), 4u);
  const double simt = 1048576.0 + 2 * 65536.0 + 4 * 32 + 2 * 5 + 7 + 11;
  const double tensor = 2000003.0 + 300007.0 + 40009.0 + 5011.0;
  EXPECT_DOUBLE_EQ(v(sigs[3], MetricId::kArithmeticIntensity), (simt + tensor) / 4214528.0);
  // The other rows are unchanged by the edit (no tensor operations there).
  EXPECT_DOUBLE_EQ(v(sigs[0], MetricId::kArithmeticIntensity), (1048576.0 + 2 * 65536.0) / 4214528.0);
}

// An ncu that reports the load data bytes and sectors but not the bytes-per-sector percentage
// (tests/data/signature/ncu-coalescing-fallback.csv): coalescing comes from the second recipe,
// 100 * bytes / (32 * sectors), still 0 without global loads (or without sectors).
TEST(Derive, CoalescingFallbackFromBytesAndSectors) {
  const auto t = NcuTable::read_file("data/signature/ncu-coalescing-fallback.csv");
  const auto sigs = derive_signatures(t, partial());
  ASSERT_EQ(sigs.size(), 4u);
  EXPECT_DOUBLE_EQ(v(sigs[0], MetricId::kCoalescing), 100.0 * 1048576 / (32.0 * 40960));  // 80 %
  EXPECT_DOUBLE_EQ(v(sigs[0], MetricId::kCoalescing), 80.0);
  EXPECT_DOUBLE_EQ(v(sigs[1], MetricId::kCoalescing), 0.0);
  EXPECT_DOUBLE_EQ(v(sigs[2], MetricId::kCoalescing), 0.0);
  EXPECT_DOUBLE_EQ(v(sigs[3], MetricId::kCoalescing), 100.0);
  EXPECT_NE(sigs[0].formula[index_of(MetricId::kCoalescing)].find("100 * smsp__sass_data_bytes_mem_global_op_ld.sum"),
            std::string::npos);
}

TEST(Derive, MissingCounterIsAnErrorNamingIt) {
  const auto t = NcuTable::read_file(kBf16);
  try {
    derive_signature(t, t.rows()[0], DeriveOptions{});
    FAIL();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("smsp__sass_inst_executed_op_global_ld.sum"), std::string::npos) << msg;
    EXPECT_NE(msg.find("smsp__sass_inst_executed_op_global_atom.sum"), std::string::npos) << msg;
    EXPECT_NE(msg.find("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"), std::string::npos) << msg;
    EXPECT_NE(msg.find("coalescing"), std::string::npos) << msg;
    EXPECT_NE(msg.find(kBf16), std::string::npos) << msg;
  }
}

TEST(Derive, UnmeasurableMetricsAreRecordedNotFailed) {
  // Jetson-like: no dram__* columns at all.
  std::string csv = with_full_counter_list(read_text(kFp32));
  const auto t = NcuTable::parse(csv, "jetson.csv");
  DeriveOptions o;
  o.unmeasurable = parse_metric_ids("arithmetic_intensity,dram_bandwidth", "--unmeasurable");
  const auto k = derive_signature(t, t.rows()[1], o);
  EXPECT_FALSE(k.values[index_of(MetricId::kDramBandwidth)]);
  EXPECT_FALSE(k.values[index_of(MetricId::kArithmeticIntensity)]);
  EXPECT_NE(k.unmeasured_reason[index_of(MetricId::kDramBandwidth)].find("unmeasurable"), std::string::npos);
  EXPECT_TRUE(k.values[index_of(MetricId::kCoalescing)]);
  EXPECT_THROW(parse_metric_ids("dram_bw", "--unmeasurable"), InputError);
}

TEST(Derive, NotAvailableValuesAndBadNumbers) {
  std::string csv = read_text(kBf16);
  // n/a in a needed counter: that metric is unmeasured under --partial, an error otherwise.
  {
    std::string s = csv;
    const auto pos = s.find("\"58.39\"");
    ASSERT_NE(pos, std::string::npos);
    s.replace(pos, 7, "\"n/a\"");
    const auto t = NcuTable::parse(s, "na.csv");
    const auto k = derive_signature(t, t.rows()[0], partial());
    EXPECT_FALSE(k.values[index_of(MetricId::kL2HitRate)]);
    EXPECT_NE(k.unmeasured_reason[index_of(MetricId::kL2HitRate)].find("n/a"), std::string::npos);
  }
  {
    std::string s = csv;
    const auto pos = s.find("\"58.39\"");
    s.replace(pos, 7, "\"58.3x\"");
    const auto t = NcuTable::parse(s, "nan.csv");
    try {
      derive_signature(t, t.rows()[0], partial());
      FAIL();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("lts__t_sector_hit_rate.pct"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("58.3x"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("line 6"), std::string::npos) << e.what();
    }
  }
}

TEST(Derive, NonBaseUnitsAreRejected) {
  std::string s = read_text(kBf16);
  const auto pos = s.find("\"byte/s\"");
  ASSERT_NE(pos, std::string::npos);
  s.replace(pos, 8, "\"Gbyte/s\"");
  // Only the first of four dram__bytes.*.per_second columns changed: that one is .avg, so fix all.
  for (auto p = s.find("\"byte/s\""); p != std::string::npos; p = s.find("\"byte/s\"")) s.replace(p, 8, "\"Gbyte/s\"");
  const auto t = NcuTable::parse(s, "units.csv");
  try {
    derive_signature(t, t.rows()[0], partial());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--print-units base"), std::string::npos) << e.what();
  }
}

TEST(Derive, MetricListIsTheSingleSourceAndCoversEveryRecipe) {
  const std::string list = ncu_metrics_argument();
  for (const char* needed :
       {"l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct", "smsp__sass_inst_executed_op_global_ld.sum",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
        "smsp__sass_inst_executed_op_global_atom.sum", "smsp__sass_inst_executed_op_global_red.sum",
        "smsp__inst_executed.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "dram__bytes_read.sum",
        "dram__bytes_write.sum", "dram__bytes.sum.per_second",
        "smsp__average_thread_inst_executed_per_inst_executed.ratio",
        "sm__warps_active.avg.pct_of_peak_sustained_active", "gpu__time_duration.sum"})
    EXPECT_NE(list.find(needed), std::string::npos) << needed;
  EXPECT_EQ(list.find(' '), std::string::npos);
  EXPECT_EQ(list.find(",,"), std::string::npos);
}

TEST(KernelSource, SelectsByIdOrRegexAndRejectsAmbiguity) {
  const auto k = load_kernel_signature(std::string(kFp32) + "#id=1", partial());
  EXPECT_NE(k.name.find("tilesize64x128x8"), std::string::npos);
  const auto r = load_kernel_signature(std::string(kFp32) + "#nn_n_tilesize", partial());
  EXPECT_EQ(r.ncu_id, "1");
  try {
    load_kernel_signature(std::string(kBf16) + "#nvjet", partial());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("4 kernels match"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_kernel_signature(std::string(kBf16) + "#id=9", partial()), InputError);
  EXPECT_THROW(load_kernel_signature(std::string(kBf16) + "#zzz", partial()), InputError);
  EXPECT_THROW(load_kernel_signature(std::string(kBf16) + "#(", partial()), InputError);
}

TEST(KernelSource, SignatureJsonRoundTrip) {
  const auto k = load_kernel_signature(std::string(kBf16) + "#id=2", partial());
  SignatureFile f{"x", {k}, {}};
  const std::string path = ::testing::TempDir() + "sig_roundtrip.json";
  write_json_file(path, f.to_json());
  const auto back = load_kernel_signature(path, DeriveOptions{});
  EXPECT_EQ(back.name, k.name);
  EXPECT_EQ(back.values, k.values);
  EXPECT_EQ(back.unmeasured_reason[index_of(MetricId::kCoalescing)], k.unmeasured_reason[index_of(MetricId::kCoalescing)]);
  EXPECT_EQ(back.launch->shared_dynamic_bytes, 224508);
  EXPECT_EQ(back.engine, EngineClass::kTensorCore);
  // A reference file embeds one kernel signature under "signature".
  Json ref{{"schema", "vxsynth.reference/1"}, {"signature", k.to_json()}};
  write_json_file(path, ref);
  EXPECT_EQ(load_kernel_signature(path, DeriveOptions{}).values, k.values);
  // Unknown schema version and unknown metric ids are rejected.
  ref["schema"] = "vxsynth.reference/7";
  write_json_file(path, ref);
  EXPECT_THROW(load_kernel_signature(path, DeriveOptions{}), InputError);
  Json sig = k.to_json();
  sig["metrics"]["l3_hit_rate"] = 1.0;
  write_json_file(path, Json{{"schema", "vxsynth.signature/1"}, {"kernels", Json::array({sig})}});
  EXPECT_THROW(load_kernel_signature(path, DeriveOptions{}), InputError);
}

}  // namespace
}  // namespace vxsynth::signature

namespace vxsynth::signature {
namespace {

// Profiles taken with the full metric list by the reference capture (pi0 on the H200).
const char* kPi0 = "data/h200/ncu-full-pi0.csv";

TEST(DeriveFullList, EveryMetricMeasuredStrictlyOnRealProfiles) {
  for (const char* f : {"data/h200/ncu-full-act.csv", "data/h200/ncu-full-diffusion_policy.csv", kPi0}) {
    const auto t = NcuTable::read_file(f);
    const auto sigs = derive_signatures(t, DeriveOptions{});
    ASSERT_FALSE(sigs.empty()) << f;
    for (const auto& k : sigs)
      for (const auto& m : metric_table()) EXPECT_TRUE(k.values[index_of(m.id)]) << f << " " << k.name << " " << m.key;
  }
}

TEST(DeriveFullList, Pi0BiasLinearByHand) {
  const auto t = NcuTable::read_file(kPi0);
  const auto k = derive_signature(t, t.rows()[0], DeriveOptions{});
  EXPECT_EQ(k.name, "nvjet_sm90_tst_48x64_64x15_4x2_h_bz_bias_TNN");
  EXPECT_DOUBLE_EQ(v(k, MetricId::kL1HitRate), 0);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kL2HitRate), 55.45);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kCoalescing), 50);  // 2,304 LDG issued: the bias loads
  EXPECT_DOUBLE_EQ(v(k, MetricId::kComputeThroughput), 10.19);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kTensorUtilization), 20.73);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kAtomicsPerInstruction), 0);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kArithmeticIntensity), (294912.0 + 679477248.0) / 3264768.0);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kDramBandwidth), 490500000000.0);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kActiveLaneFraction), 31.72 / 32);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kOccupancy), 13.56);
}

TEST(DeriveFullList, Pi0GemmaMlpByHand) {
  const auto t = NcuTable::read_file(kPi0);
  const auto k = derive_signature(t, t.rows()[1], DeriveOptions{});
  EXPECT_EQ(k.name, "nvjet_sm90_tst_128x272_64x4_2x1_v_bz_coopA_TNT");
  // The Gemma MLP up-projection 816 x 2048 -> 16384: tensor ops are exactly 2 M N K.
  EXPECT_DOUBLE_EQ(k.counters.at("sm__ops_path_tensor_src_bf16_dst_fp32.sum"), 2.0 * 816 * 2048 * 16384);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kCoalescing), 0);  // TMA-fed: no LDG issued
  EXPECT_DOUBLE_EQ(v(k, MetricId::kAtomicsPerInstruction), 126.0 / 6627343.0);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kArithmeticIntensity), 54760833024.0 / (72638208.0 + 14557696.0));
  EXPECT_DOUBLE_EQ(v(k, MetricId::kDramBandwidth), 1181132206328.57);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kActiveLaneFraction), 31.96 / 32);
  EXPECT_DOUBLE_EQ(v(k, MetricId::kTensorUtilization), 89.10);
  EXPECT_EQ(k.engine, EngineClass::kTensorCore);
}

// The tile check on the real kernels of the suite: each reference's launch, read from the full
// profile it was captured in, agrees with its own operator's GEMM shape (or cannot be checked,
// for persistent kernels), and agrees with no other reference's shape.
TEST(DeriveFullList, TileAgreesWithItsOwnProblemAndNoOther) {
  struct Case {
    std::string benchmark;
    KernelSignature sig;  // derived from the fixture row, without a problem
    NcuTable table;
    std::size_t row;
    MeasuredEvidence::Problem problem;
  };
  std::vector<Case> cases;
  for (const auto& dir : std::filesystem::directory_iterator("../suite/vx-robotics/h200")) {
    const auto file = dir.path() / "reference.json";
    if (!std::filesystem::exists(file)) continue;
    const Json ref = read_json_file(file.string());
    const std::string workload = ref["workload"]["name"].get<std::string>();
    const std::string id = ref["signature"]["ncu_id"].get<std::string>();
    auto table = NcuTable::read_file("data/h200/ncu-full-" + workload + ".csv");
    for (std::size_t i = 0; i < table.rows().size(); ++i) {
      if (*table.text(table.rows()[i], "ID") != id) continue;
      ASSERT_EQ(*table.text(table.rows()[i], "Kernel Name"), ref["signature"]["name"].get<std::string>()) << file;
      const Json& g = ref["op"]["gemm"];
      cases.push_back({dir.path().filename().string(), derive_signature(table, table.rows()[i], DeriveOptions{}),
                       table, i, {g["M"].get<long long>(), g["N"].get<long long>(), g["batch"].get<long long>()}});
    }
  }
  ASSERT_EQ(cases.size(), 15u);
  int agreeing = 0, with_tile = 0;
  std::set<std::string> cross;  // "kernel's benchmark <- shape's benchmark" pairs that agree
  for (const Case& c : cases) {
    if (!c.sig.name_reading.find("tile")) continue;
    ++with_tile;
    for (const Case& other : cases) {
      DeriveOptions o;
      o.problem = other.problem;
      const auto k = derive_signature(c.table, c.table.rows()[c.row], o);
      const NameProperty* tile = k.name_reading.find("tile");
      const bool same_shape = other.problem.m == c.problem.m && other.problem.n == c.problem.n &&
                              other.problem.batch == c.problem.batch;
      if (same_shape) {
        EXPECT_NE(tile->check, Agreement::kContradicted) << c.benchmark << ": " << tile->check_note;
      }
      if (other.benchmark == c.benchmark) agreeing += tile->check == Agreement::kAgrees;
      if (!same_shape && tile->check == Agreement::kAgrees) cross.insert(c.benchmark + " <- " + other.benchmark);
    }
  }
  EXPECT_EQ(with_tile, 10);
  EXPECT_EQ(agreeing, 9);  // all but pi0-2's persistent nvjet kernel (132 blocks for 427 tiles: unchecked)
  // Another operator's shape agrees only where its tiles would launch the very grid that ran:
  // ACT's 302 x 512 linears and its 300 x 512 conv have equal tile counts; pi0-4's 51 x 4096 is
  // exactly the 64 blocks of the U-Net conv, and pi0-1's 32 x 1 tiles of 64x64 are that conv's own
  // layout; the U-Net's 4 x 1024 shapes give pi0-4's kernel 22 tiles in a row, padded to its
  // (4, 1, 1) cluster. The old rule (any multiple of the tile count) accepted 54 such pairs,
  // among them the 51 x 256 x 8 on pi0-5's kernel.
  const std::set<std::string> expected = {
      "act-1-linear <- act-5-conv2d",
      "act-2-linear <- act-5-conv2d",
      "act-5-conv2d <- act-1-linear",
      "act-5-conv2d <- act-2-linear",
      "diffusion_policy-2-conv1d <- pi0-1-batched-matmul",
      "diffusion_policy-2-conv1d <- pi0-4-linear",
      "pi0-4-linear <- diffusion_policy-3-conv1d",
      "pi0-4-linear <- diffusion_policy-4-conv1d",
      "pi0-4-linear <- diffusion_policy-5-conv1d",
  };
  EXPECT_EQ(cross, expected);
}

}  // namespace
}  // namespace vxsynth::signature
