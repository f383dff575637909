// The ncu driver's host side: the command line, rows -> launches by stream, signatures,
// distances and noise, on synthetic ncu CSV built from the project's own counter list.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include "common/error.h"
#include "gpu/profile_report.h"
#include "signature/derive.h"
#include "signature/distance.h"

namespace vxsynth::gpu {
namespace {

struct FakeKernel {
  std::string name;
  unsigned long long stream;
  double duration_ns;
  double scale;  // varies the counters so signatures differ
  long long pid = 1;  // ncu's "Process ID"
};

std::string quote(const std::string& s) { return "\"" + s + "\""; }

// A plausible value for each counter: percents in range, counts positive.
double counter_value(const std::string& name, double scale, double duration_ns) {
  if (name == "gpu__time_duration.sum") return duration_ns;
  if (name == "sm__cycles_elapsed.avg.per_second") return 1.98e9;
  if (name.find("launch__grid_size") != std::string::npos) return 120;
  if (name.find("launch__block_size") != std::string::npos) return 256;
  if (name.find("launch__") == 0) return 32;
  if (name.find(".pct") != std::string::npos) return std::min(100.0, 40.0 * scale);
  if (name.find("per_inst_executed.ratio") != std::string::npos) return 31.5;
  if (name.find("bytes_per_sector_mem_global_op_ld.ratio") != std::string::npos) return 16;
  if (name.find("per_second") != std::string::npos) return 1e11 * scale;
  if (name.find("_atom") != std::string::npos || name.find("_red") != std::string::npos) return 0;
  if (name.find("dram__bytes") == 0) return 1e6 * scale;
  return 1e6 * scale;
}

std::string fake_csv(const std::vector<FakeKernel>& kernels, const std::string& drop_counter = "") {
  std::vector<std::string> counters;
  std::vector<std::string> units;
  for (const auto& c : signature::ncu_counter_list()) {
    if (std::string(c.name) == drop_counter) continue;
    counters.emplace_back(c.name);
    units.emplace_back(c.unit);
  }
  std::ostringstream out;
  out << "==PROF== Connected to process 1 (vxsynth-gpu-harness)\n";
  out << "\"ID\",\"Process ID\",\"Kernel Name\",\"Stream\"";
  for (const auto& c : counters) out << "," << quote(c);
  out << "\n\"\",\"\",\"\",\"\"";
  for (const auto& u : units) out << "," << quote(u);
  out << "\n";
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    out << quote(std::to_string(i)) << "," << quote(std::to_string(k.pid)) << "," << quote(k.name) << "," << quote(std::to_string(k.stream));
    for (const auto& c : counters) {
      std::ostringstream v;
      v.precision(12);
      v << counter_value(c, k.scale, k.duration_ns);
      out << "," << quote(v.str());
    }
    out << "\n";
  }
  return out.str();
}

std::vector<LaunchRecord> launches_for(const std::vector<std::pair<std::string, unsigned long long>>& segs) {
  std::vector<LaunchRecord> out;
  std::map<std::string, int> repeat;
  for (const auto& [segment, stream] : segs) {
    LaunchRecord l;
    l.segment = segment;
    l.candidate = segment.substr(0, segment.find('@'));
    l.op = segment.substr(segment.find('@') + 1);
    l.repeat = repeat[segment]++;
    l.stream_id = stream;
    out.push_back(l);
  }
  return out;
}

TEST(NcuCommand, UsesTheProjectMetricsAndRequiredOptions) {
  const auto argv = ncu_command("/opt/ncu", "/b/vxsynth-gpu-harness", "/o/job.json");
  auto has = [&](const std::string& a, const std::string& b) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == a && argv[i + 1] == b) return true;
    }
    return false;
  };
  EXPECT_EQ(argv.front(), "/opt/ncu");
  EXPECT_TRUE(has("--metrics", signature::ncu_metrics_argument()));
  EXPECT_TRUE(has("--clock-control", "none"));
  EXPECT_TRUE(has("--cache-control", "all"));
  EXPECT_TRUE(has("--nvtx-include", "vxsynth/"));
  EXPECT_TRUE(has("--page", "raw"));
  EXPECT_EQ(argv[argv.size() - 2], "/b/vxsynth-gpu-harness");
  EXPECT_EQ(argv.back(), "/o/job.json");
}

TEST(NcuCommand, ProfilesEveryKernelUnlessNamesAreGiven) {
  const auto all = ncu_command("/opt/ncu", "/b/h", "/o/job.json");
  EXPECT_EQ(std::find(all.begin(), all.end(), "--kernel-name"), all.end());
  const auto some = ncu_command("/opt/ncu", "/b/h", "/o/job.json", {"transform", "gemm", "gemm"});
  const auto at = std::find(some.begin(), some.end(), "--kernel-name");
  ASSERT_NE(at, some.end());
  EXPECT_EQ(*(at + 1), "regex:^(.*::)?(gemm|transform)$");
  const auto base = std::find(some.begin(), some.end(), "--kernel-name-base");
  ASSERT_NE(base, some.end());
  EXPECT_EQ(*(base + 1), "function");
  EXPECT_EQ(some.back(), "/o/job.json");
  EXPECT_THROW(ncu_command("/opt/ncu", "/b/h", "/o/job.json", {"gemm|.*"}), InputError);
  EXPECT_THROW(ncu_kernel_filter({"1gemm"}), InputError);
  EXPECT_THROW(ncu_kernel_filter({""}), InputError);
}

// The filter must select the main kernel and nothing else whichever way a regex engine reads it
// (whole-name or search, ECMAScript or POSIX extended) and whether or not the name carries its
// namespace.
TEST(NcuCommand, KernelFilterSelectsExactlyTheNamedFunctions) {
  const std::string pattern = ncu_kernel_filter({"gemm", "transform"}).substr(6);
  for (const auto grammar : {std::regex::ECMAScript, std::regex::extended}) {
    const std::regex re(pattern, grammar);
    for (const char* yes : {"gemm", "transform", "(anonymous namespace)::gemm", "design3::transform"}) {
      EXPECT_TRUE(std::regex_match(std::string(yes), re)) << yes;
      EXPECT_TRUE(std::regex_search(std::string(yes), re)) << yes;
    }
    for (const char* no : {"reduce_split_k", "pad_a", "im2col", "round_copy", "gemm_tail", "my_gemm", "transform2",
                           "nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NNT", "gemm::helper"}) {
      EXPECT_FALSE(std::regex_search(std::string(no), re)) << no;
    }
  }
}

// Candidates launch in the runner process and the vendor operator in the harness: the same
// stream id in two processes is two launches, and rows of a runner that was killed during its
// launch (it recorded none) belong to nobody.
TEST(MapProfile, RowsAreKeyedByProcessAndStreamWhenLaunchesNameTheirProcess) {
  const auto csv = fake_csv({{"cand_kernel", 14, 5000, 1.0, 200},
                             {"ref_kernel", 14, 9000, 1.5, 100},
                             {"hung_kernel", 14, 1e9, 0.7, 300},
                             {"cand_kernel", 15, 5100, 1.0, 200},
                             {"ref_kernel", 15, 9100, 1.5, 100}});
  const auto table = signature::NcuTable::parse(csv, "fake.csv");
  auto launches = launches_for({{"k@lin", 14}, {"reference@lin", 14}, {"k@lin", 15}, {"reference@lin", 15}});
  for (std::size_t i = 0; i < launches.size(); ++i) launches[i].pid = i % 2 == 0 ? 200 : 100;
  const auto mapping = map_profile(table, launches, {});
  ASSERT_EQ(mapping.launches.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    ASSERT_EQ(mapping.launches[i].kernels.size(), 1u) << i;
    EXPECT_EQ(mapping.launches[i].primary().name, i % 2 == 0 ? "cand_kernel" : "ref_kernel") << i;
  }
}

// A candidate that answers its profiled launch without a kernel (a cached copy, a host
// computation): its launch is set aside for the driver to fail, the batch keeps its profiles,
// and the vendor's rows on a library-internal stream still go to the vendor's launch.
TEST(MapProfile, AKernellessLaunchIsSetAsideAndTakesNoOtherProcessRows) {
  const auto csv = fake_csv({{"cand_kernel", 14, 5000, 1.0, 200},
                             {"ref_internal", 77, 9000, 1.5, 100},
                             {"cand_kernel", 16, 5100, 1.0, 200}});
  const auto table = signature::NcuTable::parse(csv, "fake.csv");
  auto launches = launches_for({{"k@lin", 14}, {"cheat@lin", 15}, {"reference@lin", 20}, {"k@lin", 16}});
  for (auto& l : launches) l.pid = l.candidate == kReferenceName ? 100 : 200;
  const auto mapping = map_profile(table, launches, {});
  ASSERT_EQ(mapping.kernelless.size(), 1u);
  EXPECT_EQ(mapping.kernelless[0].segment, "cheat@lin");
  ASSERT_EQ(mapping.launches.size(), 3u);
  EXPECT_EQ(mapping.launches[0].launch.segment, "k@lin");
  EXPECT_EQ(mapping.launches[1].launch.segment, "reference@lin");
  EXPECT_EQ(mapping.launches[1].primary().name, "ref_internal");
  EXPECT_EQ(mapping.launches[2].launch.segment, "k@lin");
  // Without process ids the same rows leave two empty launches between: ambiguous, an error.
  for (auto& l : launches) l.pid = 0;
  EXPECT_THROW(map_profile(table, launches, {}), WorkError);
}

TEST(MapProfile, RowsGoToTheLaunchOfTheirStream) {
  // The reference launches two kernels (a layout transform and the conv); the candidate one.
  const auto csv = fake_csv({{"cand_kernel", 14, 5000, 1.0},
                             {"nchwToNhwcKernel", 15, 800, 0.5},
                             {"xmma_fprop_kernel", 15, 9000, 1.5},
                             {"cand_kernel", 16, 5100, 1.0},
                             {"nchwToNhwcKernel", 17, 810, 0.5},
                             {"xmma_fprop_kernel", 17, 9100, 1.5}});
  const auto table = signature::NcuTable::parse(csv, "fake.csv");
  const auto launches = launches_for({{"k@conv", 14}, {"reference@conv", 15}, {"k@conv", 16}, {"reference@conv", 17}});
  const auto mapping = map_profile(table, launches, {});
  EXPECT_EQ(mapping.method, "stream id");
  ASSERT_EQ(mapping.launches.size(), 4u);
  EXPECT_EQ(mapping.launches[0].kernels.size(), 1u);
  ASSERT_EQ(mapping.launches[1].kernels.size(), 2u);
  EXPECT_EQ(mapping.launches[1].primary().name, "xmma_fprop_kernel");  // the longest, not the first
  EXPECT_EQ(mapping.launches[1].kernels[1].name, "nchwToNhwcKernel");
  // At operator scope the pairing is the same, between whole launches.
  const auto by_operator = summarize_profile(mapping, signature::DistanceConfig{});
  EXPECT_DOUBLE_EQ(by_operator.segments[0].d_to_reference[1],
                   *signature::compute_distance(mapping.launches[2].op.signature.values, mapping.launches[3].op.signature.values,
                                                signature::DistanceConfig{}).d);
  EXPECT_DOUBLE_EQ(by_operator.segments[1].operator_duration_ns_mean, (800 + 9000 + 810 + 9100) / 2.0);

  const auto summary = summarize_profile(mapping, signature::DistanceConfig{}, {}, signature::Scope::kKernel);
  ASSERT_EQ(summary.segments.size(), 2u);
  const auto& cand = summary.segments[0];
  EXPECT_EQ(cand.segment, "k@conv");
  EXPECT_EQ(cand.repeats, 2);
  ASSERT_EQ(cand.d_to_reference.size(), 2u);
  // Repeat i of the candidate against repeat i of the reference (launches 0/1 and 2/3), exactly.
  const signature::DistanceConfig cfg;
  auto dist = [&](std::size_t a, std::size_t b) {
    return *signature::compute_distance(mapping.launches[a].primary().values, mapping.launches[b].primary().values, cfg).d;
  };
  EXPECT_DOUBLE_EQ(cand.d_to_reference[0], dist(0, 1));
  EXPECT_DOUBLE_EQ(cand.d_to_reference[1], dist(2, 3));
  EXPECT_GT(cand.d_to_reference[0], 0.0);
  ASSERT_EQ(cand.d_between_repeats.size(), 1u);
  // Identical counters apart from the duration: the repeats' D is exactly the distance of the
  // two candidate launches, and (nearly) zero.
  EXPECT_DOUBLE_EQ(cand.d_between_repeats[0], dist(0, 2));
  EXPECT_LT(cand.d_between_repeats[0], 0.01);
  const auto& ref = summary.segments[1];
  EXPECT_EQ(ref.candidate, kReferenceName);
  EXPECT_TRUE(ref.d_to_reference.empty());
  EXPECT_EQ(ref.other_kernels, std::vector<std::string>{"nchwToNhwcKernel"});
  const Json j = summary.to_json();
  EXPECT_EQ(j["schema"], "vxsynth.gpu-profile-summary/1");
  EXPECT_TRUE(j["noise"].contains("max_d_between_repeats"));
  EXPECT_NE(summary.text().find("k@conv"), std::string::npos);
  // The D column says what it is measured against (not the suite's workload reference).
  EXPECT_NE(summary.text().find("D(ref): to the vendor operator profiled in this job"), std::string::npos);
}

TEST(MapProfile, KernelsOnLibraryInternalStreamsGoToTheLaunchBetween) {
  // As seen on the H200: cuDNN ran a grouped convolution on four internal streams, none of
  // them the stream the harness gave it.
  const auto csv = fake_csv({{"cand", 30, 5000, 1.0},
                             {"nchwToNhwc", 14, 500, 0.5},
                             {"fprop", 14, 3000, 1.5},
                             {"fprop", 15, 3000, 1.5},
                             {"nhwcToNchw", 16, 400, 0.5},
                             {"cand2", 32, 5000, 1.0},
                             {"ref2_extra", 99, 100, 0.5}});
  const auto table = signature::NcuTable::parse(csv, "fake.csv");
  const auto mapping =
      map_profile(table, launches_for({{"c@g", 30}, {"reference@g", 31}, {"c@h", 32}, {"reference@h", 33}}), {});
  EXPECT_EQ(mapping.method, "stream id, library-internal streams by launch order");
  EXPECT_EQ(mapping.launches[0].kernels.size(), 1u);
  ASSERT_EQ(mapping.launches[1].kernels.size(), 4u);
  EXPECT_EQ(mapping.launches[1].primary().name, "fprop");
  EXPECT_EQ(mapping.launches[2].kernels.size(), 1u);
  EXPECT_EQ(mapping.launches[3].kernels.size(), 1u);  // the trailing unknown row: the only empty launch after
  EXPECT_EQ(mapping.launches[3].primary().name, "ref2_extra");
}

// A vendor row on a library-internal stream between two launches that each have rows of their
// own belongs to the earlier launch (the harness waits for each launch, so it ran before the
// next one started), never to the candidate launched after it.
TEST(MapProfile, AnInternalStreamRowBetweenTwoLaunchesWithRowsStaysWithTheEarlierOne) {
  const auto csv = fake_csv({{"cand", 30, 5000, 1.0},
                             {"gemm", 31, 3000, 1.5},
                             {"splitk_reduce", 77, 400, 0.5},
                             {"cand", 32, 5100, 1.0},
                             {"gemm", 33, 3100, 1.5}});
  const auto table = signature::NcuTable::parse(csv, "fake.csv");
  const auto mapping =
      map_profile(table, launches_for({{"c@g", 30}, {"reference@g", 31}, {"c@g", 32}, {"reference@g", 33}}), {});
  EXPECT_EQ(mapping.method, "stream id, library-internal streams by launch order");
  ASSERT_EQ(mapping.launches.size(), 4u);
  ASSERT_EQ(mapping.launches[1].kernels.size(), 2u);
  EXPECT_EQ(mapping.launches[1].kernels[1].name, "splitk_reduce");
  ASSERT_EQ(mapping.launches[2].kernels.size(), 1u);
  EXPECT_EQ(mapping.launches[2].primary().name, "cand");
  EXPECT_EQ(mapping.launches[3].kernels.size(), 1u);
}

TEST(MapProfile, FallsBackToStreamOrderWhenIdsDiffer) {
  const auto csv = fake_csv({{"a", 101, 1000, 1.0}, {"b", 102, 1000, 2.0}, {"b2", 102, 500, 2.0}});
  const auto table = signature::NcuTable::parse(csv, "fake.csv");
  const auto mapping = map_profile(table, launches_for({{"a@x", 7}, {"b@x", 8}}), {});
  EXPECT_EQ(mapping.method, "stream order");
  EXPECT_EQ(mapping.launches[1].kernels.size(), 2u);
}

TEST(MapProfile, MismatchIsAnErrorNamingTheCsv) {
  const auto csv = fake_csv({{"a", 101, 1000, 1.0}, {"b", 102, 1000, 2.0}, {"c", 103, 1000, 2.0}});
  const auto table = signature::NcuTable::parse(csv, "fake.csv");
  try {
    map_profile(table, launches_for({{"a@x", 7}, {"b@x", 8}}), {});
    FAIL();
  } catch (const WorkError& e) {
    EXPECT_NE(std::string(e.what()).find("fake.csv"), std::string::npos);
  }
  // ncu printed no kernel at all (the NVTX filter matched nothing): an error, not an empty profile.
  EXPECT_ANY_THROW(map_profile(signature::NcuTable::parse(fake_csv({}), "empty.csv"), launches_for({{"a@x", 7}}), {}));
  EXPECT_THROW(map_profile(table, {}, {}), WorkError);
}

TEST(MapProfile, MissingCounterIsAnErrorNamingIt) {
  const std::string dropped = "lts__t_sector_hit_rate.pct";
  const auto table = signature::NcuTable::parse(fake_csv({{"a", 7, 1000, 1.0}}, dropped), "fake.csv");
  try {
    map_profile(table, launches_for({{"a@x", 7}}), {});
    FAIL() << "a missing counter was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(dropped), std::string::npos) << e.what();
  }
}

TEST(Summary, NoiseStatisticsOverRepeats) {
  std::vector<FakeKernel> rows;
  std::vector<std::pair<std::string, unsigned long long>> segs;
  const double scales[] = {1.0, 1.02, 0.98};
  unsigned long long stream = 20;
  for (double s : scales) {
    rows.push_back({"k", stream, 1000, s});
    segs.emplace_back("k@op", stream++);
    rows.push_back({"ref", stream, 2000, 2.0});
    segs.emplace_back("reference@op", stream++);
  }
  const auto table = signature::NcuTable::parse(fake_csv(rows), "fake.csv");
  const auto summary = summarize_profile(map_profile(table, launches_for(segs), {}), signature::DistanceConfig{});
  const auto& k = summary.segments[0];
  EXPECT_EQ(k.repeats, 3);
  EXPECT_EQ(k.d_between_repeats.size(), 3u);  // three pairs
  const auto l2 = static_cast<std::size_t>(signature::MetricId::kL2HitRate);
  EXPECT_EQ(k.metrics[l2].n, 3);
  EXPECT_NEAR(k.metrics[l2].min, 40.0 * 0.98, 1e-9);
  EXPECT_NEAR(k.metrics[l2].max, 40.0 * 1.02, 1e-9);
  EXPECT_NEAR(k.metrics[l2].mean, 40.0, 1e-9);
  EXPECT_NEAR(k.metrics[l2].spread_distance, 40.0 * 0.04 / 100.0, 1e-9);
  EXPECT_GT(summary.max_d_between_repeats, 0.0);
  EXPECT_GT(summary.max_d_spread, 0.0);
  // D of the mean signatures lies within the per-repeat range here (the metrics move linearly).
  ASSERT_TRUE(k.d_of_means.has_value());
  const auto [lo, hi] = std::minmax_element(k.d_to_reference.begin(), k.d_to_reference.end());
  EXPECT_GE(*k.d_of_means, *lo - 1e-12);
  EXPECT_LE(*k.d_of_means, *hi + 1e-12);
  EXPECT_FALSE(summary.segments[1].d_of_means.has_value());  // the reference itself
  EXPECT_EQ(summary.segments[1].d_between_repeats.size(), 3u);
  EXPECT_DOUBLE_EQ(summary.segments[1].d_between_repeats[0], 0.0);  // identical reference rows
}

// --suite: each repeat's D to the workload reference the op names, next to D to the vendor
// operator of the job; an op with no workload reference gets none (not a guessed one).
TEST(Summary, WorkloadReferenceGivesTheSuiteD) {
  std::vector<FakeKernel> rows;
  std::vector<std::pair<std::string, unsigned long long>> segs;
  unsigned long long stream = 40;
  for (double s : {1.0, 1.03, 0.97}) {
    rows.push_back({"k", stream, 1000, s});
    segs.emplace_back("k@act-2-linear", stream++);
    rows.push_back({"ref", stream, 2000, 2.0});
    segs.emplace_back("reference@act-2-linear", stream++);
    rows.push_back({"other", stream, 1500, 0.5});
    segs.emplace_back("j@unknown-op", stream++);
  }
  const auto table = signature::NcuTable::parse(fake_csv(rows), "fake.csv");
  const auto mapping = map_profile(table, launches_for(segs), {});
  // The workload reference: another kernel than the job's vendor run (the workload's own launch).
  signature::MetricValues workload = mapping.launches[1].primary().values;
  const auto l2 = static_cast<std::size_t>(signature::MetricId::kL2HitRate);
  *workload[l2] += 7.0;
  const auto summary = summarize_profile(mapping, signature::DistanceConfig{},
                                         {{"act-2-linear", {"suite/act-2-linear/reference.json", workload, std::nullopt}}},
                                         signature::Scope::kKernel);
  const auto& k = summary.segments[0];
  ASSERT_EQ(k.segment, "k@act-2-linear");
  EXPECT_EQ(k.workload_reference, "suite/act-2-linear/reference.json");
  ASSERT_EQ(k.d_to_workload.size(), 3u);
  const signature::DistanceConfig cfg;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(k.d_to_workload[i], *signature::compute_distance(mapping.launches[3 * i].primary().values, workload, cfg).d);
    EXPECT_NE(k.d_to_workload[i], k.d_to_reference[i]);  // not the job's vendor run
  }
  for (const auto& s : summary.segments) {
    if (s.candidate == kReferenceName || s.op == "unknown-op") {
      EXPECT_TRUE(s.d_to_workload.empty()) << s.segment;
    }
  }
  const std::string text = summary.text();
  EXPECT_NE(text.find("D(suite)"), std::string::npos) << text;
  double mean = 0;
  for (double d : k.d_to_workload) mean += d;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", mean / 3);
  EXPECT_NE(text.find(buf), std::string::npos) << buf << "\n" << text;
  EXPECT_EQ(summary.to_json()["segments"][0]["d_to_workload"].size(), 3u);
}

// Operator scope: a candidate that pads first and a vendor call of two kernels are each summed
// over their launch (time, bytes) and aggregated (metrics); D is taken between operators, the
// longest kernels' D kept beside it, and the time and byte ratios are over the workload
// reference's operator.
TEST(Summary, OperatorScopeSumsEveryKernelOfALaunch) {
  std::vector<FakeKernel> rows;
  std::vector<std::pair<std::string, unsigned long long>> segs;
  unsigned long long stream = 60;
  for (int repeat = 0; repeat < 2; ++repeat) {
    rows.push_back({"pad_a", stream, 300, 0.4});
    rows.push_back({"gemm", stream, 1200, 1.0});
    segs.emplace_back("k@act-4-linear", stream++);
    rows.push_back({"gemm_vendor", stream, 1000, 1.1});
    rows.push_back({"reduce", stream, 250, 0.7});
    segs.emplace_back("reference@act-4-linear", stream++);
  }
  const auto table = signature::NcuTable::parse(fake_csv(rows), "fake.csv");
  const auto mapping = map_profile(table, launches_for(segs), {});
  ASSERT_EQ(mapping.launches.size(), 4u);
  const ProfiledLaunch& cand = mapping.launches[0];
  ASSERT_EQ(cand.kernels.size(), 2u);
  EXPECT_EQ(cand.primary().name, "gemm");  // longest first
  EXPECT_EQ(cand.op.kernels.front().name, "pad_a");  // launch order
  EXPECT_DOUBLE_EQ(cand.op.duration_ns, 1500);
  // The workload reference: the vendor launch's operator, 20 % longer and with other metrics.
  WorkloadReference w;
  w.file = "suite/act-4-linear/reference.json";
  w.kernel = mapping.launches[1].primary().values;
  w.op = mapping.launches[1].op;
  w.op->duration_ns = 1250 * 1.2;
  w.op->dram_bytes = *mapping.launches[1].op.dram_bytes * 2;
  const auto l2 = static_cast<std::size_t>(signature::MetricId::kL2HitRate);
  *w.op->signature.values[l2] += 5.0;
  const auto summary = summarize_profile(mapping, signature::DistanceConfig{}, {{"act-4-linear", w}});
  EXPECT_EQ(summary.scope, signature::Scope::kOperator);
  const auto& k = summary.segments[0];
  ASSERT_EQ(k.segment, "k@act-4-linear");
  EXPECT_DOUBLE_EQ(k.operator_duration_ns_mean, 1500);
  EXPECT_DOUBLE_EQ(k.duration_ns_mean, 1200);
  const signature::DistanceConfig cfg;
  ASSERT_EQ(k.d_to_reference.size(), 2u);
  EXPECT_DOUBLE_EQ(k.d_to_reference[0], *signature::compute_distance(cand.op.signature.values, mapping.launches[1].op.signature.values, cfg).d);
  ASSERT_EQ(k.d_to_workload.size(), 2u);
  EXPECT_DOUBLE_EQ(k.d_to_workload[0], *signature::compute_distance(cand.op.signature.values, w.op->signature.values, cfg).d);
  ASSERT_EQ(k.d_to_workload_other_scope.size(), 2u);
  EXPECT_DOUBLE_EQ(k.d_to_workload_other_scope[0], *signature::compute_distance(cand.primary().values, w.kernel, cfg).d);
  EXPECT_DOUBLE_EQ(k.time_ratio.value(), 1500.0 / 1250.0);
  EXPECT_DOUBLE_EQ(k.workload_time_ratio.value(), 1500.0 / 1500.0);
  EXPECT_DOUBLE_EQ(k.dram_ratio.value(), *cand.op.dram_bytes / *mapping.launches[1].op.dram_bytes);
  EXPECT_DOUBLE_EQ(k.workload_dram_ratio.value(), *cand.op.dram_bytes / *w.op->dram_bytes);
  const std::string text = summary.text();
  EXPECT_NE(text.find("scope: operator"), std::string::npos) << text;
  EXPECT_NE(text.find("1.00x"), std::string::npos) << text;
  // A workload reference without an operator cannot be compared at operator scope.
  WorkloadReference old = w;
  old.op.reset();
  EXPECT_THROW(summarize_profile(mapping, cfg, {{"act-4-linear", old}}), InputError);
  // Nor can a job that profiled only some kernels.
  ProfileMapping some = mapping;
  some.every_kernel = false;
  EXPECT_THROW(summarize_profile(some, cfg, {}), WorkError);
  EXPECT_NO_THROW(summarize_profile(some, cfg, {}, signature::Scope::kKernel));
}

}  // namespace
}  // namespace vxsynth::gpu
