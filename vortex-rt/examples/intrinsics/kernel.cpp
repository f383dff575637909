// Standalone self-check of the Vortex intrinsics (vx_intrinsics.h) on every warp of every
// core: ids, thread masks, votes, shuffles, split/join, pred and tmc. One CTA of one warp
// per warp slot; each lane records the checks it saw fail as bits; core 0 prints the names
// of failed checks and returns how many failed (0 = all passed).
#include "vx_branchless.h"  // vxsynth's (vortex-rt/extra): copy it along to build elsewhere
#include <vx_print.h>
#include <vx_spawn.h>

enum Check : uint32_t {
  kIds = 1u << 0,
  kMask = 1u << 1,
  kVoteAll = 1u << 2,
  kVoteAny = 1u << 3,
  kVoteUni = 1u << 4,
  kBallot = 1u << 5,
  kShflUp = 1u << 6,
  kShflDown = 1u << 7,
  kShflBfly = 1u << 8,
  kShflIdx = 1u << 9,
  kSplitJoin = 1u << 10,
  kPredLoop = 1u << 11,
  kTmc = 1u << 12,
  kLocalMem = 1u << 13,
};
static const char* const kCheckNames[] = {"ids", "thread mask", "vote.all", "vote.any", "vote.uni", "vote.ballot",
                                          "shfl.up", "shfl.down", "shfl.bfly", "shfl.idx", "split/join",
                                          "pred loop", "tmc", "local memory"};
static constexpr uint32_t kNumChecks = sizeof(kCheckNames) / sizeof(kCheckNames[0]);
static constexpr uint32_t kMaxHarts = 64 * 32 * 32;

static uint32_t failures[kMaxHarts];
static volatile int32_t tmc_marks[kMaxHarts];

// Lane-dependent conditions must not become branches (GCC inserts no split/join), so the
// checks combine them through vx_branchless.h.
static inline uint32_t fail_if(uint32_t bad, uint32_t check) { return vxb_mask(bad) & check; }
static inline int select(uint32_t condition, int if_true, int if_false) {
  return (int)vxb_select(condition, (uint32_t)if_true, (uint32_t)if_false);
}

static void check_warp(void* arg) {
  (void)arg;
  const uint32_t n = (uint32_t)vx_num_threads();
  const uint32_t lane = threadIdx.x;
  const uint32_t full = n == 32 ? 0xFFFFFFFFu : (1u << n) - 1;
  const uint32_t hart = (uint32_t)vx_hart_id();
  uint32_t failed = 0;

  const uint32_t expected_hart = ((uint32_t)vx_core_id() * (uint32_t)vx_num_warps() + (uint32_t)vx_warp_id()) * n + lane;
  failed |= fail_if(((uint32_t)vx_thread_id() != lane) | (hart != expected_hart), kIds);
  failed |= fail_if((uint32_t)vx_active_threads() != full, kMask);

  failed |= fail_if(vx_vote_all(1) == 0, kVoteAll);
  failed |= fail_if(vx_vote_all(lane != 0) != 0, kVoteAll);  // lane 0 votes false
  failed |= fail_if(vx_vote_any(lane == n - 1) == 0, kVoteAny);
  failed |= fail_if(vx_vote_any(0) != 0, kVoteAny);
  failed |= fail_if((vx_vote_uni((int)(lane & 1)) != 0) != (n == 1), kVoteUni);
  failed |= fail_if((uint32_t)vx_vote_ballot((int)(lane & 1)) != (0xAAAAAAAAu & full), kBallot);

  const int value = (int)(lane * 10 + 7);
  const int up = vx_shfl_up((size_t)value, 1, 0, 0);
  failed |= fail_if(up != select(lane == 0, value, (int)((lane - 1) * 10 + 7)), kShflUp);
  const int down = vx_shfl_down((size_t)value, 1, (int)(n - 1), 0);
  failed |= fail_if(down != select(lane == n - 1, value, (int)((lane + 1) * 10 + 7)), kShflDown);
  const int bfly = vx_shfl_bfly((size_t)value, 1, (int)(n - 1), 0);
  failed |= fail_if(bfly != select(n == 1, value, (int)((lane ^ 1) * 10 + 7)), kShflBfly);
  const int idx = vx_shfl_idx((size_t)value, 2, (int)(n - 1), 0);
  failed |= fail_if(idx != select(n > 2, 27, value), kShflIdx);

  // Divergent if/else through split/join: odd lanes take one side, even lanes the other.
  volatile int32_t side = 0;
  const int odd = (int)(lane & 1);
  int sp = vx_split(odd);
  if (odd) {
    side = (int32_t)(lane * 3);
  } else {
    side = (int32_t)(lane * 5);
  }
  vx_join(sp);
  failed |= fail_if(side != (int32_t)(lane * (5 - 2 * (uint32_t)odd)), kSplitJoin);
  failed |= fail_if((uint32_t)vx_active_threads() != full, kSplitJoin);

  // Divergent loop through pred: lane t iterates t times.
  volatile uint32_t iterations = 0;
  for (;;) {
    const int more = iterations < lane;
    vx_pred(more, (int)full);
    if (!more) break;
    iterations = iterations + 1;
  }
  failed |= fail_if(iterations != lane, kPredLoop);
  failed |= fail_if((uint32_t)vx_active_threads() != full, kPredLoop);

  // tmc: only lane 0 marks; the mark shows which lanes ran in between.
  tmc_marks[hart] = 0;
  vx_tmc(1);
  tmc_marks[hart] = 1;
  vx_tmc((int)full);
  failed |= fail_if(tmc_marks[hart] != (int32_t)(lane == 0), kTmc);

  failed |= fail_if(csr_read(VX_CSR_LOCAL_MEM_BASE) != LMEM_BASE_ADDR, kLocalMem);
  volatile uint32_t* local = reinterpret_cast<volatile uint32_t*>(__local_mem(32 * sizeof(uint32_t)));
  local[lane] = hart;
  failed |= fail_if(local[lane] != hart, kLocalMem);

  failures[hart] = failed;
}

int main() {
  const uint32_t threads = (uint32_t)vx_num_threads();
  const uint32_t slots = (uint32_t)vx_num_cores() * (uint32_t)vx_num_warps();
  // One warp per CTA: blocks of `threads` threads, one per warp of the machine.
  if (vx_spawn_threads(1, &slots, &threads, check_warp, nullptr) != 0) return 100;
  if (vx_num_cores() > 1) vx_barrier(0x80000000, vx_num_cores());
  if (vx_core_id() != 0) return 0;

  const uint32_t harts = slots * threads;
  uint32_t any = 0;
  for (uint32_t h = 0; h < harts; ++h) any |= failures[h];
  int failed_checks = 0;
  for (uint32_t c = 0; c < kNumChecks; ++c) {
    if (any & (1u << c)) {
      vx_printf("FAILED: %s\n", kCheckNames[c]);
      ++failed_checks;
    }
  }
  vx_printf("intrinsics: %d of %u checks failed on %u warps x %u threads\n", failed_checks, (unsigned)kNumChecks, (unsigned)slots,
            (unsigned)threads);
  return failed_checks;
}
