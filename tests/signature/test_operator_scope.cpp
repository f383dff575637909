// Operator scope: each metric of several kernels is their mean weighted by what the metric is a
// ratio over. Checked by hand on made-up kernels, and on real H200 rows (the committed capture of
// ACT, whose act-4 addmm call runs three cuBLAS kernels) against sums taken from the CSV here.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "common/error.h"
#include "common/json_io.h"
#include "signature/derive.h"
#include "signature/ncu_csv.h"
#include "signature/operator_scope.h"

namespace vxsynth::signature {
namespace {

double value(const KernelSignature& k, MetricId id) { return k.values[index_of(id)].value(); }

// A kernel with every metric measured (values differing per metric) and the weight counters.
KernelSignature kernel(const std::string& name, double duration_ns, double scale, bool with_sectors = true) {
  KernelSignature k;
  k.name = name;
  k.duration_ns = duration_ns;
  for (const MetricInfo& m : metric_table()) k.values[index_of(m.id)] = scale * (1.0 + static_cast<double>(index_of(m.id)));
  if (with_sectors) {
    k.counters["l1tex__t_sectors.sum"] = 1000 * scale;
    k.counters["lts__t_sectors.sum"] = 3000 / scale;
  }
  k.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 500 * scale * scale;
  k.counters["smsp__inst_executed.sum"] = 7000 + scale;
  k.counters["dram__bytes_read.sum"] = 4096 * scale;
  k.counters["dram__bytes_write.sum"] = 1024;
  return k;
}

TEST(OperatorScope, OneKernelIsItsOwnOperator) {
  // Whatever the weights, one kernel's operator has its values, duration and bytes, and nothing
  // is approximate even without the sector counters.
  const KernelSignature k = kernel("gemm", 1234.5, 2.7, /*with_sectors=*/false);
  const OperatorSignature op = aggregate_operator({k}, "op", "test");
  for (const MetricInfo& m : metric_table()) EXPECT_DOUBLE_EQ(value(op.signature, m.id), value(k, m.id)) << m.key;
  EXPECT_DOUBLE_EQ(op.duration_ns, 1234.5);
  EXPECT_DOUBLE_EQ(op.dram_bytes.value(), 4096 * 2.7 + 1024);
  EXPECT_TRUE(op.exact());
}

TEST(OperatorScope, EachMetricIsWeightedByWhatItIsARatioOver) {
  const KernelSignature a = kernel("pad", 300, 1.0), b = kernel("gemm", 900, 3.0);
  const OperatorSignature op = aggregate_operator({a, b}, "op", "test");
  auto mean = [&](MetricId id, double wa, double wb) { return (wa * value(a, id) + wb * value(b, id)) / (wa + wb); };
  // Hit rates: summed hits over summed sectors.
  EXPECT_NEAR(value(op.signature, MetricId::kL1HitRate), mean(MetricId::kL1HitRate, 1000, 3000), 1e-12);
  EXPECT_NEAR(value(op.signature, MetricId::kL2HitRate), mean(MetricId::kL2HitRate, 3000, 1000), 1e-12);
  EXPECT_NEAR(value(op.signature, MetricId::kCoalescing), mean(MetricId::kCoalescing, 500, 4500), 1e-12);
  // Utilisations and bandwidth: over time.
  for (MetricId id : {MetricId::kComputeThroughput, MetricId::kTensorUtilization, MetricId::kDramBandwidth, MetricId::kOccupancy})
    EXPECT_NEAR(value(op.signature, id), mean(id, 300, 900), 1e-12) << metric_info(id).key;
  // Per-instruction ratios over instructions, intensity over DRAM bytes.
  EXPECT_NEAR(value(op.signature, MetricId::kAtomicsPerInstruction), mean(MetricId::kAtomicsPerInstruction, 7001, 7003), 1e-12);
  EXPECT_NEAR(value(op.signature, MetricId::kActiveLaneFraction), mean(MetricId::kActiveLaneFraction, 7001, 7003), 1e-12);
  EXPECT_NEAR(value(op.signature, MetricId::kArithmeticIntensity),
              mean(MetricId::kArithmeticIntensity, 4096 + 1024, 3 * 4096 + 1024), 1e-12);
  EXPECT_DOUBLE_EQ(op.duration_ns, 1200);
  EXPECT_DOUBLE_EQ(op.dram_bytes.value(), 4096 * 4 + 2048);
  EXPECT_TRUE(op.exact());
  ASSERT_EQ(op.kernels.size(), 2u);
  EXPECT_EQ(op.kernels[1].name, "gemm");
}

TEST(OperatorScope, AMissingWeightFallsBackToDurationForEveryKernelAndSaysSo) {
  // Sectors for one kernel and nanoseconds for another cannot be mixed: all fall back together.
  const KernelSignature a = kernel("pad", 300, 1.0, /*with_sectors=*/false), b = kernel("gemm", 900, 3.0);
  const OperatorSignature op = aggregate_operator({a, b}, "op", "test");
  EXPECT_FALSE(op.exact());
  EXPECT_NE(op.approximate[index_of(MetricId::kL1HitRate)].find("pad"), std::string::npos);
  EXPECT_NE(op.approximate[index_of(MetricId::kL2HitRate)].find("weighted by duration"), std::string::npos);
  EXPECT_TRUE(op.approximate[index_of(MetricId::kCoalescing)].empty());
  EXPECT_NEAR(value(op.signature, MetricId::kL1HitRate),
              (300 * value(a, MetricId::kL1HitRate) + 900 * value(b, MetricId::kL1HitRate)) / 1200, 1e-12);
}

TEST(OperatorScope, NoWeightAnywhereGivesThePlainMean) {
  KernelSignature a = kernel("a", 100, 1.0), b = kernel("b", 200, 2.0);
  a.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 0;
  b.counters["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 0;
  const OperatorSignature op = aggregate_operator({a, b}, "op", "test");
  EXPECT_DOUBLE_EQ(value(op.signature, MetricId::kCoalescing),
                   (value(a, MetricId::kCoalescing) + value(b, MetricId::kCoalescing)) / 2);
}

TEST(OperatorScope, AMetricUnmeasuredInOneKernelIsUnmeasuredForTheOperator) {
  KernelSignature a = kernel("a", 100, 1.0), b = kernel("b", 200, 2.0);
  b.values[index_of(MetricId::kDramBandwidth)].reset();
  const OperatorSignature op = aggregate_operator({a, b}, "op", "test");
  EXPECT_FALSE(op.signature.values[index_of(MetricId::kDramBandwidth)]);
  EXPECT_NE(op.signature.unmeasured_reason[index_of(MetricId::kDramBandwidth)].find("b"), std::string::npos);
  EXPECT_TRUE(op.signature.values[index_of(MetricId::kOccupancy)]);
}

TEST(OperatorScope, AKernelWithoutDurationIsAnErrorNamingIt) {
  KernelSignature a = kernel("a", 100, 1.0), b = kernel("reduce_split_k", 200, 2.0);
  b.duration_ns.reset();
  try {
    aggregate_operator({a, b}, "op", "profile.csv");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("reduce_split_k"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("profile.csv"), std::string::npos) << e.what();
  }
  EXPECT_THROW(aggregate_operator({}, "op", "x"), InputError);
}

TEST(OperatorScope, RoundTripsThroughJson) {
  const OperatorSignature op =
      aggregate_operator({kernel("pad", 300, 1.0, false), kernel("gemm", 900, 3.0)}, "op", "test");
  const OperatorSignature back = OperatorSignature::from_json(op.to_json(), "f.json", "operator");
  for (const MetricInfo& m : metric_table())
    EXPECT_DOUBLE_EQ(value(back.signature, m.id), value(op.signature, m.id)) << m.key;
  EXPECT_EQ(back.kernels.size(), 2u);
  EXPECT_DOUBLE_EQ(back.duration_ns, 1200);
  EXPECT_EQ(back.approximate, op.approximate);
  Json bad = op.to_json();
  bad["kernels"] = Json::array();
  EXPECT_THROW(OperatorSignature::from_json(bad, "f.json", "operator"), InputError);
}

// Real H200 rows: the committed ACT capture, whose addmm call for act-4 ran cuBLAS's scal_kernel,
// sgemm_largek_lds64 and a reduction (ncu IDs 6, 7, 8). The operator's figures are recomputed here
// from the CSV's own columns by a different route: sums of counters, not weighted means.
TEST(OperatorScope, AgreesWithSumsOfTheCountersOnARealThreeKernelCall) {
  const std::string csv = "../suite/vx-robotics/captures/h200/act/ncu.csv";
  ASSERT_TRUE(std::filesystem::exists(csv)) << "run the tests from tests/";
  const NcuTable table = NcuTable::read_file(csv);
  std::vector<KernelSignature> kernels;
  double ns = 0, bytes = 0, inst = 0, thread_inst = 0, atom = 0, ld_bytes = 0, ld_sectors = 0, busy = 0, flops = 0;
  for (const NcuRow& row : table.rows()) {
    const std::set<std::string> call{"6", "7", "8"};
    if (!call.count(table.text(row, "ID").value_or(""))) continue;
    kernels.push_back(derive_signature(table, row, {}));
    auto num = [&](const char* c) { return parse_ncu_number(*table.text(row, c)).value(); };
    const double d = num("gpu__time_duration.sum");
    ns += d;
    bytes += num("dram__bytes_read.sum") + num("dram__bytes_write.sum");
    inst += num("smsp__inst_executed.sum");
    thread_inst += num("smsp__thread_inst_executed.sum");
    atom += num("smsp__sass_inst_executed_op_global_atom.sum") + num("smsp__sass_inst_executed_op_global_red.sum");
    ld_bytes += num("smsp__sass_data_bytes_mem_global_op_ld.sum");
    ld_sectors += num("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    busy += d * num("sm__warps_active.avg.pct_of_peak_sustained_active");
    flops += num("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum") + num("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum") +
             2 * num("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") +
             4 * num("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum");  // the only other nonzero FLOP counter
  }
  ASSERT_EQ(kernels.size(), 3u);
  const OperatorSignature op = aggregate_operator(kernels, "act-4 addmm", csv);
  EXPECT_DOUBLE_EQ(op.duration_ns, ns);
  EXPECT_DOUBLE_EQ(op.dram_bytes.value(), bytes);
  auto rel = [](double got, double want) { return std::abs(got - want) / std::max(std::abs(want), 1e-30); };
  // ncu prints its ratios rounded (two decimals of a percent or lanes per instruction), and its
  // bytes-per-second over its own time base: agreement to a few parts in a thousand.
  EXPECT_LT(rel(value(op.signature, MetricId::kDramBandwidth), bytes / (ns * 1e-9)), 0.01);
  EXPECT_LT(rel(value(op.signature, MetricId::kActiveLaneFraction), thread_inst / (32 * inst)), 0.002);
  EXPECT_LT(rel(value(op.signature, MetricId::kCoalescing), 100 * ld_bytes / (32 * ld_sectors)), 0.002);
  EXPECT_LT(rel(value(op.signature, MetricId::kOccupancy), busy / ns), 1e-9);
  EXPECT_LT(rel(value(op.signature, MetricId::kArithmeticIntensity), flops / bytes), 1e-9);
  EXPECT_NEAR(value(op.signature, MetricId::kAtomicsPerInstruction), atom / inst, 1e-12);
  // This capture predates the sector counters: its hit rates say they are time-weighted.
  EXPECT_FALSE(op.approximate[index_of(MetricId::kL2HitRate)].empty());
}

}  // namespace
}  // namespace vxsynth::signature
