// The refinement loop's parts on their own: the revision record (append, resume check, a line
// torn by a kill), the evaluation store and its bad input, the built-in strategy (determinism,
// fixed properties, revisits, pairs, the response table), the external generator's source
// rules, the retention presets, and importing a real H200 profile folder into a replay store.
#include <gtest/gtest.h>

#include <algorithm>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "common/error.h"
#include "design/move.h"
#include "design/neighbours.h"
#include "design/no_op.h"
#include "design/validity.h"
#include "design/seed.h"
#include "ops/inputs.h"
#include "ops/reference.h"
#include "ops/tensor_file.h"
#include "refine/evaluator.h"
#include "refine/external.h"
#include "refine/gpu_evaluator.h"
#include "refine/loop.h"
#include "refine/record.h"
#include "refine/replay.h"
#include "refine/retention.h"
#include "refine/strategy.h"
#include "refine/suite_run.h"
#include "signature/signature.h"

namespace vxsynth::refine {
namespace {

namespace fs = std::filesystem;

// This process's scratch folder, removed at exit (VXSYNTH_KEEP_SCRATCH=1 keeps it for a look).
fs::path scratch(const std::string& name) {
  static const fs::path root = [] {
    std::atexit([] {
      if (std::getenv("VXSYNTH_KEEP_SCRATCH") == nullptr) {
        std::error_code ec;
        fs::remove_all(fs::temp_directory_path() / ("vxsynth-refine-parts-" + std::to_string(::getpid())), ec);
      }
    });
    return fs::temp_directory_path() / ("vxsynth-refine-parts-" + std::to_string(::getpid()));
  }();
  const fs::path dir = root / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(RecordFile, AppendsResumesAndDropsATornLine) {
  const fs::path dir = scratch("record");
  const std::string path = (dir / "revisions.jsonl").string();
  {
    RecordFile f(path, false);
    f.append(Json{{"revision", 0}, {"d", 0.25}});
    f.append(Json{{"revision", 1}, {"d", 0.125}});
  }
  EXPECT_EQ(read_records(path).size(), 2u);
  // A second run without --resume must not touch the record.
  EXPECT_NE(error_of([&] { RecordFile f(path, false); }).find("--resume"), std::string::npos);
  // A kill in the middle of a write leaves half a line: resume drops it and writes it again.
  std::ofstream(path, std::ios::app) << "{\"revision\": 2, \"d\": 0.1";
  {
    RecordFile f(path, true);
    EXPECT_EQ(f.existing(), 2);
    f.append(Json{{"revision", 0}, {"d", 0.25}});  // the same as on disk: checked, not written
    f.append(Json{{"revision", 1}, {"d", 0.125}});
    f.append(Json{{"revision", 2}, {"d", 0.1}});
  }
  const auto lines = read_records(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["revision"], 2);
  EXPECT_TRUE(lines[2].contains("at"));
  const std::string text = slurp(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  // A resumed run that produces something else stops and says where.
  RecordFile g(path, true);
  g.append(Json{{"revision", 0}, {"d", 0.25}});
  const std::string e = error_of([&] { g.append(Json{{"revision", 1}, {"d", 0.5}}); });
  EXPECT_NE(e.find("line 2 differs"), std::string::npos) << e;
}

// Two writers of one record would interleave their lines (a requeued cluster task whose earlier
// attempt has not ended yet): the second is refused while the first holds the file, in this
// process or another, and may go on once it is closed.
TEST(RecordFile, ASecondWriterIsRefusedWhileTheFirstHoldsTheRecord) {
  const fs::path dir = scratch("record-lock");
  const std::string path = (dir / "revisions.jsonl").string();
  {
    RecordFile first(path, false);
    first.append(Json{{"revision", 0}, {"d", 0.25}});
    const std::string e = error_of([&] { RecordFile second(path, true); });
    EXPECT_NE(e.find("another process is writing"), std::string::npos) << e;
    first.append(Json{{"revision", 1}, {"d", 0.125}});
  }
  RecordFile again(path, true);
  EXPECT_EQ(again.existing(), 2);
  EXPECT_EQ(read_records(path).size(), 2u);
}

TEST(EvaluationStore, RoundTripsAndRejectsBadEntries) {
  const fs::path dir = scratch("store");
  EvaluationStore store(dir.string(), true);
  Evaluation e;
  e.key = "design-0123456789abcdef";
  e.design_name = "x";
  e.source_check.status = "passed";
  e.source_check.max_abs_error = 0.0009765625;
  signature::MetricValues v{};
  v[0] = 87.4;
  v[7] = 7.1e10;
  e.profiles = {v, v};
  e.profiles[1][0] = 88.4;
  e.set_mean();
  e.device_seconds = 0.83;
  e.build_seconds = 0.21;
  e.cuda_sha256 = std::string(64, 'a');
  e.generator = {3, "0123456789abcdef0123456789abcdef01234567"};
  store.put(e);
  const auto back = store.get(e.key);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->generator, e.generator);
  EXPECT_DOUBLE_EQ(back->device_seconds, 0.83);
  // It measured the candidate whose source has its digest (or whose digest is not known).
  {
    Candidate c;
    c.cuda_sha256 = std::string(64, 'a');
    EXPECT_TRUE(back->measured(c));
    c.cuda_sha256 = std::string(64, 'b');
    EXPECT_FALSE(back->measured(c));
    c.cuda_sha256.clear();
    EXPECT_TRUE(back->measured(c));
  }
  EXPECT_DOUBLE_EQ(back->build_seconds, 0.21);
  // A confirmation adds its device time and build time to the screening's.
  {
    Evaluation screen = *back, confirm = *back;
    merge_confirmation(screen, confirm);
    EXPECT_DOUBLE_EQ(screen.device_seconds, 1.66);
    EXPECT_DOUBLE_EQ(screen.build_seconds, 0.42);
    EXPECT_EQ(screen.profiles.size(), 4u);
  }
  // A store written before builds were counted apart reads as 0.
  {
    Json old = e.to_json();
    old.erase("build_seconds");
    write_json_file((dir / "design-5555555555555555.json").string(), [&] {
      old["key"] = "design-5555555555555555";
      return old;
    }());
    EXPECT_DOUBLE_EQ(store.get("design-5555555555555555")->build_seconds, 0.0);
    // ... and one written before generators had versions is the unversioned generator's.
    old.erase("generator");
    old["key"] = "design-6666666666666666";
    write_json_file((dir / "design-6666666666666666.json").string(), old);
    EXPECT_TRUE(store.get("design-6666666666666666")->generator.unversioned());
    // Superseded: kept under superseded/, no longer the key's.
    store.supersede("design-6666666666666666");
    EXPECT_FALSE(store.get("design-6666666666666666"));
    EXPECT_TRUE(fs::is_regular_file(dir / "superseded" / "design-6666666666666666-aaaaaaaaaaaa.json"));
  }
  EXPECT_DOUBLE_EQ(*back->mean[0], 87.9);
  EXPECT_FALSE(back->mean[1]);  // unmeasured stays unmeasured
  EXPECT_DOUBLE_EQ(back->source_check.max_abs_error, 0.0009765625);
  EXPECT_FALSE(store.get("design-ffffffffffffffff"));
  EXPECT_NE(error_of([&] { store.get("../etc/passwd"); }).find("only letters"), std::string::npos);
  // Bad entries name the file and the field.
  Json j = e.to_json();
  j["profiles"][0]["l1_hit_rate"] = "high";
  write_json_file((dir / "design-1111111111111111.json").string(), j);
  EXPECT_NE(error_of([&] { store.get("design-1111111111111111"); }).find("profiles[0].l1_hit_rate"), std::string::npos);
  j = e.to_json();
  j["key"] = "design-2222222222222222";
  write_json_file((dir / "design-3333333333333333.json").string(), j);
  EXPECT_NE(error_of([&] { store.get("design-3333333333333333"); }).find("file name says"), std::string::npos);
  j = e.to_json();
  j["schema"] = "vxsynth.evaluation/9";
  write_json_file((dir / "design-4444444444444444.json").string(), j);
  EXPECT_NE(error_of([&] { store.get("design-4444444444444444"); }).find("evaluation/9"), std::string::npos);
  EXPECT_NE(error_of([] { EvaluationStore s("/nonexistent/store"); }).find("no such evaluation store"), std::string::npos);
}

// A chain state at pi0-1's round-2 parent with the workload reference's signature, scored from
// the recorded parent evaluation.
ChainState pi0_state() {
  ChainState s;
  s.name = "pi0-1-batched-matmul";
  s.reference = signature::read_signatures("../suite/vx-robotics/h200/pi0-1-batched-matmul/reference.json").front().values;
  s.current = design::read_design("data/refine/pi0-1-batched-matmul/parent-design.json");
  const auto e = EvaluationStore("data/refine/store").get(design_key(s.current));
  EXPECT_TRUE(e);
  const auto report = signature::compute_distance(e->mean, s.reference, {});
  s.current_distances = report.per_metric;
  s.current_d = *report.d;
  s.current_signature = e->mean;
  RevisionRecord start;
  start.revision = 0;
  start.kind = "start";
  start.decision = "start";
  start.signature = e->mean;
  start.distances = report.per_metric;
  start.d = report.d;
  s.records.push_back(start);
  s.evaluated.insert(design_key(s.current));
  s.next_revision = 1;
  return s;
}

TEST(BuiltinStrategy, ProposesValidUntriedMovesDeterministically) {
  const ChainState s = pi0_state();
  BuiltinStrategy strategy;
  const auto all = [](const Candidate&) { return true; };
  const auto a = strategy.propose(s, 6, all);
  const auto b = strategy.propose(s, 6, all);
  ASSERT_EQ(a.size(), 6u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].moves, b[i].moves);
    EXPECT_EQ(a[i].kind, "single");
    EXPECT_FALSE(design::can_implement(a[i].design)) << design::to_string(a[i].moves);
    // Fixed properties hold.
    EXPECT_EQ(a[i].design.fixed.block_size, s.current.fixed.block_size);
    EXPECT_EQ(a[i].design.fixed.engine, s.current.fixed.engine);
    EXPECT_EQ(a[i].design.fixed.precision, s.current.fixed.precision);
    EXPECT_NE(design_key(a[i].design), design_key(s.current));
    EXPECT_FALSE(a[i].targets.empty());
    EXPECT_NE(a[i].why.find("expected total cut"), std::string::npos);
    EXPECT_NE(a[i].same_operator.find("unchanged"), std::string::npos);
  }
  // Only what the evaluator can answer is proposed.
  EvaluationStore store("data/refine/store");
  const auto recorded = strategy.propose(s, 50, [&](const Candidate& c) { return store.get(c.key).has_value(); });
  EXPECT_GE(recorded.size(), 5u);
  for (const auto& p : recorded) EXPECT_TRUE(store.get(design_key(p.design))) << design::to_string(p.moves);
}

// prefetch cp_async is tried first where speed is the gap: on the fp32 SIMT ACT linears' and
// act-5's locks, with DRAM bandwidth and SM throughput their largest distances (as on the H200),
// the step to cp_async is the first proposal; after it, the ring's depth steps are proposed.
// cp_async is a step of the ACT chains (no longer the first: on the H200 it moved coalescing and
// L1, not the DRAM rate), and on a cp_async design the ring's depth is proposed.
// Every axis says why a move along it keeps the operator (the records carry it): an axis added
// without its reason stopped a device run with "internal error: map::at" after its first round
// (session 23).
// No proposal gains a value that does nothing at its shape (design/no_op.h): at pi0-3's shape
// (51 rows, no interior 64-row block) the step to boundary uniform_branch is a neighbour, but
// never proposed; from a design that holds one, the step that drops it is.
TEST(BuiltinStrategy, ProposesNoMoveToANoOpValue) {
  ChainState s;
  s.name = "pi0-3-batched-matmul";
  s.reference_path = "../suite/vx-robotics/h200/pi0-3-batched-matmul/reference.json";
  // The committed lock's design with the guarded boundary (its neighbours include uniform_branch).
  s.current = design::read_design("../suite/vx-robotics/h200/pi0-3-batched-matmul/design.json");
  s.current.boundary = design::Boundary::kGuarded;
  ASSERT_FALSE(design::can_implement(s.current).has_value());
  ASSERT_TRUE(design::no_op_values(s.current).empty());
  bool neighbour = false;
  for (const auto& n : design::neighbours(s.current))
    neighbour |= n.move.axis == design::Axis::kBoundary && n.design.boundary == design::Boundary::kUniformBranch;
  ASSERT_TRUE(neighbour);
  BuiltinStrategy strategy;
  const auto all = [](const Candidate&) { return true; };
  const auto proposals = strategy.propose(s, 200, all);
  ASSERT_GT(proposals.size(), 5u);
  for (const auto& p : proposals) EXPECT_TRUE(design::no_op_values(p.design).empty()) << design::to_string(p.moves);
  // The committed pi0-3 lock holds one: a step back to guarded is still proposed.
  s.current = design::read_design("../suite/vx-robotics/h200/pi0-3-batched-matmul/design.json");
  ASSERT_EQ(design::no_op_values(s.current).size(), 1u);
  bool back = false;
  for (const auto& p : strategy.propose(s, 200, all)) back |= p.design.boundary == design::Boundary::kGuarded;
  EXPECT_TRUE(back);
}

TEST(BuiltinStrategy, EveryAxisHasASameOperatorReason) {
  const design::DesignPoint d = design::seed_design(ops::make_linear("l", ops::PrecisionPath::fp32, 37, 53, 71),
                                                    design::EngineClass::kSimt, 128);
  for (design::Axis a : design::all_axes()) {
    std::string why;
    EXPECT_NO_THROW(why = same_operator_reason({design::Move{a, "up", "", std::nullopt}}, d)) << design::to_string(a);
    EXPECT_NE(why.find(design::to_string(a) + ": "), std::string::npos) << why;
  }
}

TEST(BuiltinStrategy, CpAsyncIsProposedAndItsRingDepthFollows) {
  for (const char* bench : {"act-1-linear", "act-2-linear", "act-3-linear", "act-4-linear", "act-5-conv2d"}) {
    SCOPED_TRACE(bench);
    ChainState s;
    s.name = bench;
    s.current = design::read_design(std::string("../suite/vx-robotics/h200/") + bench + "/design.json");
    if (s.current.prefetch == design::Prefetch::kCpAsync) {
      // A lock that is a ring already (act-5 since session 20): its double_buffer twin.
      s.current.prefetch = design::Prefetch::kDoubleBuffer;
      s.current.stages = 1;
      ASSERT_FALSE(design::can_implement(s.current).has_value());
    }
    for (auto& v : s.current_distances) v = 0.02;
    s.current_distances[signature::index_of(signature::MetricId::kDramBandwidth)] = 0.3;
    s.current_distances[signature::index_of(signature::MetricId::kComputeThroughput)] = 0.25;
    s.evaluated.insert(design_key(s.current));
    BuiltinStrategy strategy;
    const auto all = [](const Candidate&) { return true; };
    const auto proposals = strategy.propose(s, 100, all);
    const auto it = std::find_if(proposals.begin(), proposals.end(), [](const Proposal& p) {
      return p.moves.size() == 1 && p.moves[0].axis == design::Axis::kPrefetch && p.moves[0].direction == "to:cp_async";
    });
    ASSERT_NE(it, proposals.end());
    EXPECT_NE(it, proposals.begin());  // not first: the measured response
    const std::vector<Proposal> first{*it};
    EXPECT_EQ(first[0].design.prefetch, design::Prefetch::kCpAsync);
    // On the cp_async design the ring's depth is proposed (up: 4 stages), and leaving cp_async is
    // not proposed first.
    s.current = first[0].design;
    s.evaluated.insert(design_key(s.current));
    const auto next = strategy.propose(s, 100, all);
    ASSERT_FALSE(next.empty());
    EXPECT_NE(next[0].moves[0].axis, design::Axis::kPrefetch);
    // Up to 4 stages where four fit (act-5's 32x128x64 tile: three fp16 tiles fill the Vortex
    // core's 64 KiB of local memory, so only down to 2), a valid step either way.
    bool four_fit = true;
    try {
      design::apply_settings(s.current, {"pipeline_stages=4"}, "test");
    } catch (const InputError&) {
      four_fit = false;  // apply_settings refuses an invalid result
    }
    bool stepped = false;
    for (const auto& p : next) {
      if (p.moves[0].axis != design::Axis::kPipelineStages) continue;
      EXPECT_FALSE(design::can_implement(p.design).has_value());
      stepped |= p.design.stages == (four_fit ? 4 : 2);
    }
    EXPECT_TRUE(stepped);
  }
}

TEST(BuiltinStrategy, RevisitsAFailedAxisAndPairsWhenSinglesStall) {
  ChainState s = pi0_state();
  BuiltinStrategy strategy(BuiltinOptions{2, {}});
  const auto all = [](const Candidate&) { return true; };
  // The metric furthest from the reference.
  std::size_t worst = 0;
  for (std::size_t i = 0; i < signature::kMetricCount; ++i) {
    if (s.current_distances[i].value_or(0) > s.current_distances[worst].value_or(0)) worst = i;
  }
  // Two reverted single moves from the retained design that lowered D by less than the margin:
  // prefetch to:none, and register_tile m:up, which also moved that metric 0.3 further away.
  auto revert = [&](const design::Move& m, double d, double worse) {
    RevisionRecord r;
    r.revision = s.next_revision++;
    r.parent = 0;
    r.kind = "single";
    r.moves = {m};
    r.decision = "reverted";
    r.d = d;
    r.delta_d = d - s.current_d;
    r.signature = s.current_signature;
    r.distances = s.records[0].distances;
    *r.distances[worst] += worse;
    r.key = design_key(design::apply(s.current, m));
    s.records.push_back(r);
    s.evaluated.insert(r.key);
  };
  revert(design::Move{design::Axis::kPrefetch, "to:none", "", std::nullopt}, s.current_d - 0.003, 0.0);
  revert(design::Move{design::Axis::kRegisterTile, "m:up", "", std::nullopt}, s.current_d - 0.004, 0.3);
  const auto next = strategy.propose(s, 4, all);
  ASSERT_GE(next.size(), 2u);
  // Two reverted singles >= pair_after: the pair of both comes first, the closer one first.
  EXPECT_EQ(next[0].kind, "pair");
  ASSERT_EQ(next[0].moves.size(), 2u);
  EXPECT_EQ(next[0].moves[0].axis, design::Axis::kRegisterTile);
  EXPECT_EQ(next[0].moves[1].axis, design::Axis::kPrefetch);
  EXPECT_NE(next[0].why.find("stopped improving"), std::string::npos);
  // Then register_tile m:down, expected to take back what m:up added (at most the remaining
  // distance).
  EXPECT_EQ(next[1].kind, "single");
  EXPECT_EQ(next[1].moves[0].axis, design::Axis::kRegisterTile);
  EXPECT_EQ(next[1].moves[0].direction, "m:down");
  EXPECT_NE(next[1].why.find("revisits register_tile"), std::string::npos) << next[1].why;
  EXPECT_EQ(next[1].targets.front(), signature::metric_table()[worst].key);
}

TEST(BuiltinStrategy, PairsFillTheWidthTheSingleMovesLeave) {
  ChainState s = pi0_state();
  BuiltinStrategy strategy(BuiltinOptions{2, {}});
  // Three reverted single moves on three axes, each a little below the retained D (closest last).
  const std::vector<design::Move> moves = {design::Move{design::Axis::kPrefetch, "to:none", "", std::nullopt},
                                           design::Move{design::Axis::kRegisterTile, "m:up", "", std::nullopt},
                                           design::Move{design::Axis::kSplitK, "up", "", std::nullopt}};
  for (std::size_t i = 0; i < moves.size(); ++i) {
    RevisionRecord r;
    r.revision = s.next_revision++;
    r.parent = 0;
    r.kind = "single";
    r.moves = {moves[i]};
    r.decision = "reverted";
    r.d = s.current_d - 0.001 * static_cast<double>(i + 1);
    r.delta_d = *r.d - s.current_d;
    r.signature = s.current_signature;
    r.distances = s.records[0].distances;
    r.key = design_key(design::apply(s.current, moves[i]));
    s.records.push_back(r);
    s.evaluated.insert(r.key);
  }
  std::set<std::string> single_keys;
  for (const auto& n : design::neighbours(s.current)) single_keys.insert(design_key(n.design));
  ASSERT_GE(single_keys.size(), 2u);
  const std::string one_single = *single_keys.begin();

  // No single move left: the three pairs fill the round, closest first, each design once.
  const auto no_singles = [&](const Candidate& c) { return !single_keys.count(c.key); };
  const auto pairs = strategy.propose(s, 8, no_singles);
  ASSERT_EQ(pairs.size(), 3u);
  std::set<std::string> keys;
  for (const auto& p : pairs) {
    EXPECT_EQ(p.kind, "pair");
    EXPECT_TRUE(keys.insert(design_key(p.design)).second);
    EXPECT_FALSE(s.evaluated.count(design_key(p.design)));
  }
  EXPECT_EQ(pairs[0].moves[0].axis, design::Axis::kSplitK);
  EXPECT_EQ(pairs[0].moves[1].axis, design::Axis::kRegisterTile);
  EXPECT_EQ(pairs[1].moves[1].axis, design::Axis::kPrefetch);
  // The width still bounds the round.
  EXPECT_EQ(strategy.propose(s, 2, no_singles).size(), 2u);
  // One single move left and a width of 3: two pairs, then the single move.
  const auto one = [&](const Candidate& c) { return !single_keys.count(c.key) || c.key == one_single; };
  const auto mixed = strategy.propose(s, 3, one);
  ASSERT_EQ(mixed.size(), 3u);
  EXPECT_EQ(mixed[0].kind, "pair");
  EXPECT_EQ(mixed[1].kind, "pair");
  EXPECT_EQ(mixed[2].kind, "single");
  EXPECT_EQ(design_key(mixed[2].design), one_single);
  // Singles enough to fill the width: one pair leads, as before.
  const auto all = [](const Candidate&) { return true; };
  const auto full = strategy.propose(s, 4, all);
  ASSERT_EQ(full.size(), 4u);
  EXPECT_EQ(full[0].kind, "pair");
  for (std::size_t i = 1; i < full.size(); ++i) EXPECT_EQ(full[i].kind, "single");
}

TEST(BuiltinStrategy, ResponseTableLearnsFromTheChain) {
  ChainState s = pi0_state();
  BuiltinStrategy strategy;
  const auto before = strategy.responses(s);
  const auto l1 = signature::index_of(signature::MetricId::kL1HitRate);
  const auto split = design::index_of(design::Axis::kSplitK);
  EXPECT_DOUBLE_EQ(before[split][l1], prior_responses()[split][l1]);
  RevisionRecord r;
  r.revision = 1;
  r.parent = 0;
  r.kind = "single";
  r.moves = {design::Move{design::Axis::kSplitK, "up", "", std::nullopt}};
  r.decision = "reverted";
  r.signature = s.current_signature;
  *r.signature[l1] += 40.0;  // L1 moved by 0.4 in distance units
  r.d = s.current_d;
  s.records.push_back(r);
  const auto after = strategy.responses(s);
  EXPECT_NEAR(after[split][l1], (prior_responses()[split][l1] + 0.4) / 2, 1e-12);
}

TEST(ExternalSandbox, SourceRulesCatchVendorCallsAndFileAccess) {
  const std::string ok = "extern \"C\" int vxsynth_candidate_launch(const void*) { return 0; }\n";
  EXPECT_TRUE(source_violations(ok, false).empty());
  EXPECT_FALSE(source_violations(ok + "#include <cublas_v2.h>\n", false).empty());
  EXPECT_FALSE(source_violations(ok + "cudnnHandle_t h;\n", false).empty());
  EXPECT_FALSE(source_violations(ok + "FILE* f = fopen(\"y.bin\", \"rb\");\n", false).empty());
  EXPECT_FALSE(source_violations(ok + "std::ifstream in(\"cached\");\n", false).empty());
  EXPECT_FALSE(source_violations(ok + "void* h = dlopen(\"libcublas.so\", 0);\n", false).empty());
  EXPECT_FALSE(source_violations("__global__ void k() {}\n", false).empty());  // no ABI entry point
  EXPECT_TRUE(source_violations("void kernel_body(void* arg) {}\n", true).empty());
  const auto v = source_violations("int x;\nint y = system(\"ls\");\n", true);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("kernel.cpp line 2"), std::string::npos) << v[0];
}

TEST(Retention, PresetsAndBadNames) {
  EXPECT_EQ(retention_preset("averaged").repeats, 3);
  EXPECT_DOUBLE_EQ(retention_preset("averaged").margin, 0.005);
  EXPECT_DOUBLE_EQ(retention_preset("single").margin, 0.013);
  EXPECT_TRUE(retention_preset("single").retains(0.10, 0.086));
  EXPECT_FALSE(retention_preset("single").retains(0.10, 0.088));
  EXPECT_NE(error_of([] { retention_preset("median"); }).find("unknown retention rule"), std::string::npos);
}

TEST(ReplayImport, ReproducesTheCommittedStoreFromTheH200Profile) {
  // tests/data/refine/store was made by --import-profile from the round-2 H200 folders; the
  // copied pi0-1 folder must give the same entries, byte for byte.
  const fs::path dir = scratch("import");
  const auto keys = import_profile("data/refine/profile/pi0-1-batched-matmul", dir.string());
  EXPECT_EQ(keys.size(), 13u);
  for (const auto& key : keys) {
    EXPECT_EQ(slurp(dir / (key + ".json")), slurp(fs::path("data/refine/store") / (key + ".json"))) << key;
  }
  // The parent's entry is the parent design's key, with the recorded signature.
  const auto parent = design::read_design("data/refine/profile/pi0-1-batched-matmul/parent-design.json");
  const auto e = EvaluationStore(dir.string()).get(design_key(parent));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->profiles.size(), 1u);
  EXPECT_EQ(e->launch_block_size, 128);
  EXPECT_TRUE(e->source_check.passed());
}

// The deferred candidate check (what a GPU machine without the Vortex toolchain leaves for
// `refine --check-deferred`): a kept folder with the CUDA side's inputs and output. Here the
// "CUDA output" is the CPU reference of the CUDA side on the same seeded inputs; the Vortex
// benchmark runs on the simulator and must match it, and must fail on a wrong output or on
// inputs that are not the same bits.
int status_failed(const std::string& s) { return s == "failed" ? 7 : 0; }

// The source check a GPU round records for a candidate, from the job's checks (warm-up and
// each profiled launch). On 2026-12-02 every candidate of an H200 round was rejected with "not
// profiled" although all its checks passed: the merge skipped every check because its starting
// value already counted as a failure.
TEST(GpuBatch, CandidatesAskingForDifferentProfileCountsGoToSeparateJobs) {
  // Confirmations of candidates whose screening kept different numbers of profiles: each must
  // get the count it asked for, so the batch becomes one profile job per count.
  std::vector<Candidate> batch(6);
  const int repeats[] = {2, 2, 1, 2, 3, 1};
  for (std::size_t i = 0; i < batch.size(); ++i) {
    batch[i].key = "k" + std::to_string(i);
    batch[i].repeats = repeats[i];
  }
  const auto groups = group_by_repeats(batch);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0], (std::vector<std::size_t>{0, 1, 3}));
  EXPECT_EQ(groups[1], (std::vector<std::size_t>{2, 5}));
  EXPECT_EQ(groups[2], (std::vector<std::size_t>{4}));
  // A uniform batch stays one job; an empty one has none.
  for (auto& c : batch) c.repeats = 3;
  EXPECT_EQ(group_by_repeats(batch).size(), 1u);
  EXPECT_TRUE(group_by_repeats({}).empty());
}

// A profile job replays only what D compares: each generated candidate's main kernel (a
// layout transform's is `transform`, every GEMM family's `gemm`). A candidate whose CUDA
// source came from an external generator names its kernels as it likes: then every kernel is
// profiled, for the whole batch.
TEST(GpuBatch, ProfileJobsReplayOnlyGeneratedCandidatesMainKernels) {
  const std::string suite = "../suite/vx-robotics/h200/";
  std::vector<Candidate> batch(3);
  batch[0].design = design::read_design(suite + "act-5-conv2d/design.json");                 // SIMT tensor-core GEMM
  batch[1].design = design::read_design(suite + "diffusion_policy-1-conv1d/design.json");    // layout transform
  batch[2].design = design::read_design(suite + "diffusion_policy-2-conv1d/design.json");    // Hopper, split-K
  EXPECT_EQ(kernels_to_profile(batch), (std::vector<std::string>{"gemm", "transform"}));
  EXPECT_EQ(kernels_to_profile({batch[0], batch[2]}), (std::vector<std::string>{"gemm"}));
  batch[1].cuda_source = "/tmp/external/candidate.cu";
  EXPECT_TRUE(kernels_to_profile(batch).empty());
  EXPECT_TRUE(kernels_to_profile({}).empty());
}

TEST(GpuSourceCheck, FirstNonPassingCheckDecidesAndPassingChecksPass) {
  auto rec = [](std::string cand, std::string op, std::string status, std::string msg, double worst) {
    gpu::CheckRecord c;
    c.candidate = std::move(cand);
    c.op = std::move(op);
    c.status = std::move(status);
    c.message = std::move(msg);
    c.profiled = true;
    c.equivalence = Json{{"worst_ratio", worst}, {"count", 100}, {"failed", status_failed(c.status)}};
    return c;
  };
  const std::vector<gpu::CheckRecord> checks = {
      rec("k1", "chainA", "passed", "", 0.25),   rec("k2", "chainB", "passed", "", 0.5),
      rec("k1", "chainA", "passed", "", 0.75),   rec("k2", "chainB", "failed", "wrong", 3.0),
      rec("k2", "chainB", "passed", "", 0.5),    rec("k3", "chainA", "unsupported", "", 0),
      rec("k4", "chainA", "error", "no kernel", 0), rec("k4", "chainA", "failed", "later", 2.0),
      rec("k1", "chainB", "failed", "other op", 9.0)};
  const auto k1 = source_check_of(checks, "k1", "chainA");
  ASSERT_TRUE(k1.has_value());
  EXPECT_EQ(k1->status, "passed");  // every check of k1 on its own op passed; chainB's is not its
  EXPECT_DOUBLE_EQ(k1->worst_ratio, 0.75);
  EXPECT_EQ(k1->against, "vendor operator");
  const auto k2 = source_check_of(checks, "k2", "chainB");
  ASSERT_TRUE(k2.has_value());
  EXPECT_EQ(k2->status, "failed");  // a later pass does not hide the failure
  EXPECT_EQ(k2->message, "wrong");
  EXPECT_DOUBLE_EQ(k2->worst_ratio, 3.0);
  EXPECT_EQ(source_check_of(checks, "k3", "chainA")->status, "error");
  EXPECT_EQ(source_check_of(checks, "k3", "chainA")->message, "the candidate declined its own op");
  EXPECT_EQ(source_check_of(checks, "k4", "chainA")->message, "no kernel");  // the first non-pass
  EXPECT_FALSE(source_check_of(checks, "k5", "chainA").has_value());
}

// An evaluator that profiles by formula: each CUDA side (key) has a quality q in [0, 1) from a
// hash, and every profile is the reference's counters moved by q (plus a small per-profile wobble),
// so D grows with q. It records how many profiles each call asked for.
class FormulaEvaluator : public Evaluator {
 public:
  struct Seen {
    std::vector<int> asked;  // profiles asked for, per candidate
    int profiles = 0;
  };
  // `seen` outlives the evaluator (the loop owns and destroys the evaluator). With `op`, every
  // profile also has an operator (the reference call's, moved the same way; time and bytes too).
  FormulaEvaluator(signature::MetricValues reference, Seen* seen, std::optional<signature::OperatorSignature> op = {})
      : reference_(reference), seen_(seen), op_(std::move(op)) {}
  std::string name() const override { return "formula"; }
  bool available(const Candidate&) const override { return true; }
  std::vector<Evaluation> evaluate(const std::vector<Candidate>& batch) override {
    std::vector<Evaluation> out;
    for (const auto& c : batch) {
      seen_->asked.push_back(c.repeats);
      const std::string base = c.key.substr(0, c.key.find("-confirm"));
      const double q = static_cast<double>(std::hash<std::string>{}(base) % 1000) / 1000.0;
      Evaluation e;
      e.key = c.key;
      e.cuda_sha256 = c.cuda_sha256;  // it measures the candidate's source as it is
      e.source_check.status = "passed";
      for (int r = 0; r < std::max(1, c.repeats); ++r) {
        signature::MetricValues v = reference_;
        for (std::size_t m = 0; m < v.size(); ++m) {
          if (v[m]) *v[m] *= 1.0 + 0.5 * q + 0.002 * ((r + static_cast<int>(m)) % 3);
        }
        e.profiles.push_back(v);
        if (op_) {
          signature::MetricValues w = op_->signature.values;
          for (std::size_t m = 0; m < w.size(); ++m)
            if (w[m]) *w[m] *= 1.0 + 0.4 * q + 0.002 * ((r + static_cast<int>(m)) % 3);
          e.operator_profiles.push_back(w);
          e.operator_duration_ns.push_back(op_->duration_ns * (1.0 + q));
          e.operator_dram_bytes.push_back(*op_->dram_bytes * 2.0);
        }
        ++seen_->profiles;
      }
      e.set_mean();
      out.push_back(e);
    }
    return out;
  }
  std::vector<std::pair<CheckOutcome, double>> candidate_check(const std::vector<Candidate>& batch) override {
    CheckOutcome ok;
    ok.status = "passed";
    return std::vector<std::pair<CheckOutcome, double>>(batch.size(), {ok, 0.0});
  }

 private:
  signature::MetricValues reference_;
  Seen* seen_;
  std::optional<signature::OperatorSignature> op_;
};

// The run's store answers a candidate only with an evaluation of its source: another source
// under the same key (another generator's text) is measured again and the old evaluation kept
// aside; a replay's evaluations are reused whatever the source.
TEST(CachingEvaluator, MeasuresAgainWhenTheSourceIsAnotherOne) {
  FormulaEvaluator::Seen seen;
  signature::MetricValues ref{};
  ref[0] = 50.0;
  const fs::path dir = scratch("caching");
  CachingEvaluator cache(std::make_unique<FormulaEvaluator>(ref, &seen), EvaluationStore(dir.string(), true));
  Candidate c;
  c.key = "design-00000000000000aa";
  c.cuda_sha256 = std::string(64, 'a');
  cache.evaluate({c});
  cache.evaluate({c});
  EXPECT_EQ(cache.evaluated(), 1);
  EXPECT_EQ(cache.reused(), 1);
  c.cuda_sha256 = std::string(64, 'b');
  EXPECT_EQ(cache.evaluate({c}).front().cuda_sha256, std::string(64, 'b'));
  EXPECT_EQ(cache.evaluated(), 2);
  EXPECT_EQ(cache.superseded(), 1);
  EXPECT_TRUE(fs::is_regular_file(dir / "superseded" / "design-00000000000000aa-aaaaaaaaaaaa.json"));
  EXPECT_EQ(EvaluationStore(dir.string()).get(c.key)->cuda_sha256, std::string(64, 'b'));

  class Replayed : public FormulaEvaluator {
   public:
    using FormulaEvaluator::FormulaEvaluator;
    bool measures_sources() const override { return false; }
  };
  CachingEvaluator replay(std::make_unique<Replayed>(ref, &seen), EvaluationStore(dir.string()));
  c.cuda_sha256 = std::string(64, 'c');
  EXPECT_TRUE(replay.available(c));
  EXPECT_EQ(replay.evaluate({c}).front().cuda_sha256, std::string(64, 'b'));
  EXPECT_EQ(replay.reused(), 1);
  EXPECT_EQ(replay.superseded(), 0);
}

// Operator scope: the loop takes D between the candidate's operator and the reference call's,
// keeps the longest kernels' D beside it, and the time and byte ratios over the reference's; an
// evaluation stored with kernel profiles only is measured again, not compared.
TEST(OperatorScope, TheLoopComparesOperatorsWithTheKernelDBeside) {
  const std::string ref = "../suite/vx-robotics/h200/act-4-linear/reference.json";
  const auto kernel_ref = signature::read_signatures_at(ref, signature::Scope::kKernel).front().values;
  const auto op_ref = signature::OperatorSignature::from_json(read_json_file(ref)["operator"], ref, "operator");
  ASSERT_EQ(op_ref.kernels.size(), 3u);  // scal_kernel, sgemm_largek_lds64, the reduction
  FormulaEvaluator::Seen seen;
  LoopOptions lo;
  ASSERT_EQ(lo.scope, signature::Scope::kOperator);  // the default
  lo.out_dir = scratch("operator-scope").string();
  lo.budget.rounds = 2;
  lo.retention = retention_preset("single");
  BuiltinStrategy strategy(BuiltinOptions{});
  const auto result = run_refinement({ChainSpec{ref, "", ""}}, std::make_unique<FormulaEvaluator>(kernel_ref, &seen, op_ref),
                                     strategy, lo, nullptr);
  const signature::DistanceConfig cfg;
  int scored = 0;
  for (const auto& r : result.chains.at(0).records) {
    if (!r.d) continue;
    ++scored;
    EXPECT_EQ(r.scope, signature::Scope::kOperator);
    EXPECT_DOUBLE_EQ(*r.d, *signature::compute_distance(r.signature, op_ref.signature.values, cfg).d);
    ASSERT_TRUE(r.other_d.has_value());
    EXPECT_NE(*r.other_d, *r.d);
    ASSERT_TRUE(r.time_ratio && r.dram_ratio);
    EXPECT_GE(*r.time_ratio, 1.0);
    EXPECT_DOUBLE_EQ(*r.dram_ratio, 2.0);
    EXPECT_EQ(r.to_json()["scope"], "operator");
    EXPECT_TRUE(r.to_json()["kernel_d"].is_number());
  }
  EXPECT_GT(scored, 1);

  // A stored evaluation with kernel profiles only does not answer at operator scope.
  const fs::path dir = scratch("operator-scope-store");
  EvaluationStore store(dir.string(), true);
  Candidate c;
  c.key = "design-00000000000000ab";
  Evaluation old;
  old.key = c.key;
  old.source_check.status = "passed";
  old.profiles.push_back(kernel_ref);
  old.set_mean();
  store.put(old);
  CachingEvaluator cache(std::make_unique<FormulaEvaluator>(kernel_ref, &seen, op_ref), EvaluationStore(dir.string()),
                         signature::Scope::kOperator);
  const Evaluation fresh = cache.evaluate({c}).front();
  EXPECT_EQ(cache.superseded(), 1);
  EXPECT_TRUE(fresh.profiled_at(signature::Scope::kOperator));
  CachingEvaluator kernel_cache(std::make_unique<FormulaEvaluator>(kernel_ref, &seen), EvaluationStore(dir.string()),
                                signature::Scope::kKernel);
  kernel_cache.evaluate({c});
  EXPECT_EQ(kernel_cache.reused(), 1);  // the operator evaluation holds its kernel profiles too
  // And it survives the store's JSON.
  const auto back = EvaluationStore(dir.string()).get(c.key);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->operator_profiles.size(), back->profiles.size());
  EXPECT_EQ(back->operator_duration_mean(), fresh.operator_duration_mean());
}

// Screened retention decides as averaged does, but profiles a clearly worse candidate once.
TEST(ScreenedRetention, ConfirmsOnlyStartsAndNearFallsAndDecidesRetentionOnTheMean) {
  const std::string ref = "../suite/vx-robotics/h200/act-4-linear/reference.json";
  const auto sigs = signature::read_signatures(ref);
  ASSERT_FALSE(sigs.empty());
  FormulaEvaluator::Seen seen;
  auto fe = std::make_unique<FormulaEvaluator>(sigs.front().values, &seen);
  LoopOptions lo;
  lo.scope = signature::Scope::kKernel;  // the formula evaluator's profiles are the reference kernel's, moved
  lo.out_dir = scratch("screened").string();
  lo.budget.rounds = 3;
  lo.budget.revisions = 12;
  lo.retention = retention_preset("screened");
  EXPECT_EQ(lo.retention.full_below, 2);
  lo.retention.full_below = 0;  // the screening itself here; small rounds: ProfilesASmallRoundAtOnce
  BuiltinStrategy strategy(BuiltinOptions{});
  const auto result = run_refinement({ChainSpec{ref, "", ""}}, std::move(fe), strategy, lo, nullptr);
  ASSERT_EQ(result.chains.size(), 1u);
  const auto& recs = result.chains[0].records;
  int once = 0, thrice = 0, cut = 0;
  std::map<int, int> confirmed_in_round;
  for (const auto& r : recs) {
    if (!r.d) continue;
    EXPECT_EQ(r.retention.screen_repeats, 1);
    if (r.revision > 0 && r.profiles == 3) ++confirmed_in_round[r.round];
    if (r.revision == 0 || r.decision == "retained") {
      EXPECT_EQ(r.profiles, 3) << r.revision;
    }
    if (r.profiles == 1) {
      ++once;
      // Screened out: its one-profile D was not within the band of a fall, or another candidate
      // of its chain's round screened lower (only the lowest is profiled again).
      EXPECT_NE(r.reason.find("screen"), std::string::npos) << r.reason;
      if (*r.d < *r.parent_d - lo.retention.margin + lo.retention.screen_band) {
        EXPECT_NE(r.reason.find("of the same round screened lower"), std::string::npos) << r.reason;
        ++cut;
      } else {
        EXPECT_NE(r.reason.find("not within"), std::string::npos) << r.reason;
      }
      EXPECT_NE(r.decision, "retained");
    } else {
      EXPECT_EQ(r.profiles, 3) << r.revision;
      ++thrice;
    }
  }
  EXPECT_GT(once, 0);    // screened out: clearly worse neighbours
  EXPECT_GT(thrice, 1);  // the start and at least one near fall, confirmed
  EXPECT_GT(cut, 0);     // near falls left on one profile because a sibling screened lower
  // The one confirmed is the lowest of its round's band: every sibling left on one profile
  // screened at or above it, and names it (its screening D recomputed here from the
  // evaluator's first profile, not read back from the loop).
  std::map<int, const RevisionRecord*> by_revision;
  for (const auto& r : recs) by_revision[r.revision] = &r;
  auto screening_d = [&](const RevisionRecord& r) {
    FormulaEvaluator::Seen scratch_seen;
    FormulaEvaluator again(sigs.front().values, &scratch_seen);
    Candidate c;
    c.key = r.key;
    c.repeats = 1;
    return *signature::compute_distance(again.evaluate({c}).front().mean, sigs.front().values, lo.distance).d;
  };
  int named = 0;
  for (const auto& r : recs) {
    if (!r.d || r.profiles != 1) continue;
    const auto at = r.reason.find(" of the same round screened lower");
    if (at == std::string::npos) continue;
    const std::size_t from = r.reason.rfind('r', at);
    ASSERT_NE(from, std::string::npos) << r.reason;
    const int confirmed = std::stoi(r.reason.substr(from + 1, at - from - 1));
    ASSERT_TRUE(by_revision.count(confirmed)) << r.reason;
    const RevisionRecord& c = *by_revision[confirmed];
    EXPECT_EQ(c.round, r.round) << r.reason;
    EXPECT_EQ(c.profiles, 3) << r.reason;
    EXPECT_LE(screening_d(c), *r.d) << "r" << r.revision << " screened lower than the confirmed r" << confirmed;
    ++named;
  }
  EXPECT_EQ(named, cut);
  for (const auto& [round, n] : confirmed_in_round) EXPECT_EQ(n, 1) << "round " << round;
  // Each pass asked for what it needed: 1 to screen, 2 to confirm.
  for (int a : seen.asked) EXPECT_TRUE(a == 1 || a == 2) << a;
  EXPECT_EQ(seen.profiles, once + 3 * thrice);
  // The run's counts keep candidates and confirmations apart: one evaluation per candidate
  // profiled, one more per confirmed one.
  EXPECT_EQ(result.confirmations, thrice);
  EXPECT_EQ(result.evaluated - result.confirmations, once + thrice);
  // The rule is in the records, screening included.
  const Json line = Json::parse(slurp(fs::path(lo.out_dir) / "act-4-linear" / "revisions.jsonl").substr(0, slurp(fs::path(lo.out_dir) / "act-4-linear" / "revisions.jsonl").find('\n')));
  EXPECT_EQ(line["retention"]["rule"], "screened");
  EXPECT_EQ(line["retention"]["screen"]["repeats"], 1);
  EXPECT_EQ(line["retention"]["screen"]["confirm_best"], 1);

  // Without the cut (confirm_best 0) every candidate within the band is confirmed: the same
  // rounds' first profiles, more confirmations, and none left within the band on one profile.
  FormulaEvaluator::Seen all_seen;
  LoopOptions all = lo;
  all.out_dir = scratch("screened-all").string();
  all.retention.confirm_best = 0;
  const auto wide = run_refinement({ChainSpec{ref, "", ""}}, std::make_unique<FormulaEvaluator>(sigs.front().values, &all_seen),
                                   strategy, all, nullptr);
  EXPECT_GT(wide.confirmations, result.confirmations);
  for (const auto& r : wide.chains[0].records) {
    if (r.d && r.revision > 0 && r.profiles == 1) {
      EXPECT_GE(*r.d, *r.parent_d - all.retention.margin + all.retention.screen_band) << r.revision;
    }
  }
}

// Of a round's candidates that fell by more than the margin and passed their checks, the chain
// keeps the lowest D; every other one is reverted naming it, and none of them is lower.
TEST(Retention, ARoundKeepsItsLowestFall) {
  const std::string ref = "../suite/vx-robotics/h200/act-4-linear/reference.json";
  const auto sigs = signature::read_signatures(ref);
  ASSERT_FALSE(sigs.empty());
  FormulaEvaluator::Seen seen;
  LoopOptions lo;
  lo.scope = signature::Scope::kKernel;  // the formula evaluator's profiles are the reference kernel's, moved
  lo.out_dir = scratch("round-lowest").string();
  lo.budget.rounds = 4;
  lo.budget.revisions = 24;
  lo.width = 6;
  lo.retention = retention_preset("averaged");
  BuiltinStrategy strategy(BuiltinOptions{});
  const auto result = run_refinement({ChainSpec{ref, "", ""}}, std::make_unique<FormulaEvaluator>(sigs.front().values, &seen),
                                     strategy, lo, nullptr);
  ASSERT_EQ(result.chains.size(), 1u);
  const auto& recs = result.chains[0].records;
  std::map<int, const RevisionRecord*> kept;  // round -> its retained record
  for (const auto& r : recs) {
    if (r.decision == "retained" || r.decision == "start") kept[r.round] = &r;
  }
  int beaten = 0;
  for (const auto& r : recs) {
    if (r.reason.find("of the same round fell further") == std::string::npos) continue;
    ASSERT_TRUE(kept.count(r.round)) << r.reason;
    const RevisionRecord& k = *kept[r.round];
    EXPECT_EQ(r.reason.rfind("r" + std::to_string(k.revision) + " of the same round", 0), 0u) << r.reason;
    ASSERT_TRUE(r.d && k.d);
    EXPECT_LE(*k.d, *r.d) << "r" << r.revision << " fell further than the kept r" << k.revision;
    EXPECT_TRUE(lo.retention.retains(*r.parent_d, *r.d)) << r.reason;  // a fall itself, only not the lowest
    ++beaten;
  }
  EXPECT_GT(beaten, 0) << "no round had two falls: the rule was not exercised";
}

// A screened round of at most full_below candidates profiles each of them `repeats` times in one
// job (one ncu process instead of two) and decides on the mean; a wider round still screens; a
// resumed run decides the same way and profiles nothing again.
TEST(ScreenedRetention, ProfilesASmallRoundAtOnce) {
  const std::string ref = "../suite/vx-robotics/h200/act-4-linear/reference.json";
  const auto sigs = signature::read_signatures(ref);
  ASSERT_FALSE(sigs.empty());
  BuiltinStrategy strategy(BuiltinOptions{});
  auto run = [&](const fs::path& dir, int width, FormulaEvaluator::Seen* seen, bool resume) {
    LoopOptions lo;
    lo.scope = signature::Scope::kKernel;
  lo.scope = signature::Scope::kKernel;  // the formula evaluator's profiles are the reference kernel's, moved
    lo.out_dir = dir.string();
    lo.budget.rounds = 3;
    lo.budget.revisions = 12;
    lo.width = width;
    lo.retention = retention_preset("screened");
    lo.resume = resume;
    return run_refinement({ChainSpec{ref, "", ""}}, std::make_unique<FormulaEvaluator>(sigs.front().values, seen), strategy,
                          lo, nullptr);
  };
  // Width 2: every round (the start alone, then two proposals) is small.
  FormulaEvaluator::Seen small;
  const fs::path small_dir = scratch("screened-small");
  const auto at_once = run(small_dir, 2, &small, false);
  for (int a : small.asked) EXPECT_EQ(a, 3);
  EXPECT_EQ(at_once.confirmations, 0);
  int decided = 0;
  for (const auto& r : at_once.chains[0].records) {
    if (!r.d) continue;
    EXPECT_EQ(r.profiles, 3) << r.revision;
    EXPECT_EQ(r.reason.find("screen"), std::string::npos) << r.reason;  // decided on the mean, not screened
    if (r.decision == "reverted" && r.reason.rfind("delta D", 0) == 0) {
      EXPECT_NE(r.reason.find("decided on 3 profiles: a round of at most 2 candidates is profiled in full at once"),
                std::string::npos)
          << r.reason;
    }
    ++decided;
  }
  EXPECT_GE(decided, 5);
  EXPECT_EQ(small.profiles, 3 * decided);
  const std::string first = slurp(small_dir / "act-4-linear" / "revisions.jsonl");
  EXPECT_EQ(Json::parse(first.substr(0, first.find('\n')))["retention"]["screen"]["full_below"], 2);
  // Width 4: the start's round is small (one candidate, profiled 3 times); the wider rounds screen.
  FormulaEvaluator::Seen wide;
  run(scratch("screened-wide"), 4, &wide, false);
  ASSERT_FALSE(wide.asked.empty());
  EXPECT_EQ(wide.asked.front(), 3);
  EXPECT_GT(std::count(wide.asked.begin(), wide.asked.end(), 1), 2);
  // The same small run resumed with every candidate in its store: nothing is profiled again.
  FormulaEvaluator::Seen again;
  run(small_dir, 2, &again, true);
  EXPECT_EQ(again.profiles, 0);
}

TEST(DeferredCheck, RunsFromTheKeptCudaOutput) {
  const design::DesignPoint d = design::seed_design(
      ops::make_linear("t", ops::PrecisionPath::fp32, 19, 37, 45, true, ops::Activation::none), design::EngineClass::kSimt, 64);
  const std::uint64_t seed = 20261201;
  auto keep = [&](const std::string& name) {
    const fs::path dir = scratch(name);
    const auto inputs = ops::generate_inputs(d.op, seed);
    for (const auto& t : inputs) ops::write_tensor_file((dir / (t.name() + ".tensor")).string(), t);
    ops::Tensor y = ops::compute_reference(d.op, inputs, {});
    y.set_name("y_candidate");
    ops::write_tensor_file((dir / "y_candidate.tensor").string(), y);
    design::write_design((dir / "design.json").string(), d);
    write_json_file((dir / "check.json").string(), Json{{"key", design_key(d)}, {"seed", seed}});
    return dir;
  };
  const fs::path good = keep("kept-good");
  const auto [ok, seconds] = check_saved(good.string(), scratch("work-good").string());
  EXPECT_EQ(ok.status, "passed") << ok.message;
  EXPECT_NE(ok.against.find("cuda-candidate output (seed 20261201)"), std::string::npos);
  EXPECT_GT(ok.count, 0);
  EXPECT_GT(seconds, 0);
  // A CUDA output the Vortex side does not reproduce fails the check.
  const fs::path wrong = keep("kept-wrong");
  ops::Tensor y = ops::read_tensor_file((wrong / "y_candidate.tensor").string());
  y.set(7, y.get(7) + 1.0f);
  ops::write_tensor_file((wrong / "y_candidate.tensor").string(), y);
  EXPECT_EQ(check_saved(wrong.string(), scratch("work-wrong").string()).first.status, "failed");
  // Inputs that are not the bits the seed gives: the comparison is meaningless, said so.
  const fs::path other = keep("kept-other");
  for (const auto& entry : fs::directory_iterator(other)) {
    if (entry.path().stem() == "y_candidate" || entry.path().extension() != ".tensor") continue;
    ops::Tensor x = ops::read_tensor_file(entry.path().string());
    x.set_bits(0, x.bits(0) ^ 1u);
    ops::write_tensor_file(entry.path().string(), x);
    break;
  }
  const auto o = check_saved(other.string(), scratch("work-other").string()).first;
  EXPECT_EQ(o.status, "error");
  EXPECT_NE(o.message.find("differs between the CUDA run and the Vortex benchmark"), std::string::npos) << o.message;
}

// One record line as the loop writes it, reduced to what a lock's choice reads.
Json lock_record(int revision, const std::string& decision, double d, const std::string& source, const std::string& candidate) {
  return Json{{"revision", revision},
              {"key", "k" + std::to_string(revision)},
              {"decision", decision},
              {"d", d},
              {"checks", {{"source", {{"status", source}}}, {"candidate", {{"status", candidate}}}}}};
}

ResolvedCheck recorded_check(const Json& l) {
  ResolvedCheck r;
  r.check = l["checks"]["candidate"];
  return r;
}

// A lock takes the lowest-D start or retained revision whose source and candidate checks both
// passed: not the first, not the last, not a reverted one however low, not one whose source
// check failed; when the best fails its candidate check, the next best, and says why it passed
// over the better one.
TEST(LockChoice, LowestDWithBothChecksPassedAndTheNextBestWhenTheBestFails) {
  const std::vector<Json> lines = {
      lock_record(0, "start", 0.080, "passed", "passed"),
      lock_record(1, "retained", 0.051, "passed", "passed"),
      lock_record(2, "reverted", 0.010, "passed", "passed"),   // lower, but not kept
      lock_record(3, "retained", 0.020, "failed", "passed"),   // lower, but its source check failed
      lock_record(4, "retained", 0.034, "passed", "passed"),   // the one
      lock_record(5, "retained", 0.047, "passed", "passed"),
      lock_record(6, "rejected", 0.001, "error", "error"),
  };
  const auto candidates = lock_candidates(lines);
  std::vector<int> order;
  for (const Json* l : candidates) order.push_back((*l)["revision"].get<int>());
  EXPECT_EQ(order, (std::vector<int>{4, 5, 1, 0}));
  const LockChoice best = choose_lock_revision(candidates, recorded_check);
  ASSERT_NE(best.record, nullptr);
  EXPECT_EQ((*best.record)["revision"], 4);
  EXPECT_TRUE(best.passed_over.empty());

  // The best fails its candidate check: the next best (r5), and the reason names r4.
  std::vector<Json> failing = lines;
  failing[4]["checks"]["candidate"]["status"] = "failed";
  const auto next = choose_lock_revision(lock_candidates(failing), recorded_check);
  ASSERT_NE(next.record, nullptr);
  EXPECT_EQ((*next.record)["revision"], 5);
  ASSERT_EQ(next.passed_over.size(), 1u);
  EXPECT_EQ(next.passed_over[0], "r4 (candidate check failed)");

  // A deferred check that cannot be completed is passed over with what would complete it.
  const auto deferred = choose_lock_revision(lock_candidates(failing), [](const Json& l) {
    ResolvedCheck r = recorded_check(l);
    if (l["revision"] == 5) {
      r.check = Json{{"status", "deferred"}};
      r.why_not = "no CUDA output";
    }
    return r;
  });
  ASSERT_NE(deferred.record, nullptr);
  EXPECT_EQ((*deferred.record)["revision"], 1);
  EXPECT_EQ(deferred.passed_over, (std::vector<std::string>{"r4 (candidate check failed)", "r5 (candidate check deferred: no CUDA output)"}));

  // None passes both: no record, every one passed over in D order.
  for (auto& l : failing) l["checks"]["candidate"]["status"] = "failed";
  const auto none = choose_lock_revision(lock_candidates(failing), recorded_check);
  EXPECT_EQ(none.record, nullptr);
  EXPECT_EQ(none.passed_over.size(), 4u);
  // Equal D: the earlier record first (a resumed run locks what the first run would have).
  const std::vector<Json> ties = {lock_record(0, "start", 0.03, "passed", "passed"), lock_record(1, "retained", 0.03, "passed", "passed")};
  EXPECT_EQ((*choose_lock_revision(lock_candidates(ties), recorded_check).record)["revision"], 0);
}

}  // namespace
}  // namespace vxsynth::refine
