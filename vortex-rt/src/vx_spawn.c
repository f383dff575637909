// vx_spawn_threads (vortex-isa.md §3.5): spreads a 1-3D grid over cores, warps and lanes.
//
// Task mode (one thread per block): a core's tasks go to lanes in warp-sized batches,
// warp w taking batches w, w + warps, ...; the last partial batch runs on warp 0 with a
// partial thread mask. CTA mode: a CTA occupies ceil(block / threads) consecutive warps,
// a core holds warps / warps_per_group CTA slots, and each slot loops over the core's
// CTAs in steps of the slot count. Cores take contiguous ranges of tasks or CTAs.
//
// All control flow here depends only on per-warp values (warp id, job fields), never on
// the lane, because GCC inserts no split/join: lane-dependent values only feed arithmetic.
#include <vx_spawn.h>

__thread dim3_t blockIdx;
__thread dim3_t threadIdx;
dim3_t gridDim;
dim3_t blockDim;
__thread uint32_t __local_group_id;
uint32_t __warps_per_group;

typedef struct {
  uint32_t stack_depth;  // first: written by __vx_spawn_run_self (vx_spawn_entry.S)
  vx_kernel_func_cb func;
  const void* arg;
  uint32_t first;            // first task (task mode) or CTA (CTA mode) of this core
  uint32_t count;            // tasks or CTAs of this core
  uint32_t groups_per_core;  // CTA slots per core; 0 in task mode
  uint32_t group_size;       // threads per CTA
} vx_spawn_job_t;

void __vx_spawn_entry(void);
void __vx_spawn_run_self(vx_spawn_job_t* job);
void __vx_spawn_warp(const vx_spawn_job_t* job);

static inline void unflatten(dim3_t* out, uint32_t index, const dim3_t* shape) {
  out->x = index % shape->x;
  index /= shape->x;
  out->y = index % shape->y;
  out->z = index / shape->y;
}

static void run_tasks(const vx_spawn_job_t* job, uint32_t warp, uint32_t lane, uint32_t threads,
                      uint32_t warps) {
  uint32_t full_batches = job->count / threads;
  uint32_t remainder = job->count % threads;
  threadIdx.x = 0;
  threadIdx.y = 0;
  threadIdx.z = 0;
  __local_group_id = 0;
  for (uint32_t batch = warp; batch < full_batches; batch += warps) {
    unflatten(&blockIdx, job->first + batch * threads + lane, &gridDim);
    job->func((void*)job->arg);
  }
  if (warp == 0 && remainder != 0) {
    vx_tmc((int)((1u << remainder) - 1));
    unflatten(&blockIdx, job->first + full_batches * threads + lane, &gridDim);
    job->func((void*)job->arg);
    vx_tmc(-1);
  }
}

static void run_groups(const vx_spawn_job_t* job, uint32_t warp, uint32_t lane, uint32_t threads) {
  uint32_t warps_per_group = __warps_per_group;
  uint32_t slot = warp / warps_per_group;
  uint32_t warp_in_group = warp % warps_per_group;
  uint32_t lanes = job->group_size - warp_in_group * threads;
  if (lanes > threads) lanes = threads;
  __local_group_id = slot;
  unflatten(&threadIdx, warp_in_group * threads + lane, &blockDim);
  if (lanes < threads) vx_tmc((int)((1u << lanes) - 1));
  for (uint32_t group = slot; group < job->count; group += job->groups_per_core) {
    unflatten(&blockIdx, job->first + group, &gridDim);
    job->func((void*)job->arg);
  }
  if (lanes < threads) vx_tmc(-1);
}

// Runs on every lane of every participating warp (see vx_spawn_entry.S).
void __vx_spawn_warp(const vx_spawn_job_t* job) {
  uint32_t threads = (uint32_t)vx_num_threads();
  uint32_t warp = (uint32_t)vx_warp_id();
  uint32_t lane = (uint32_t)vx_thread_id();
  if (job->groups_per_core == 0) {
    run_tasks(job, warp, lane, threads, (uint32_t)vx_num_warps());
  } else {
    run_groups(job, warp, lane, threads);
  }
}

int vx_spawn_threads(uint32_t dimension, const uint32_t* grid_dim, const uint32_t* block_dim,
                     vx_kernel_func_cb kernel_func, const void* arg) {
  if (dimension < 1 || dimension > 3 || grid_dim == 0 || kernel_func == 0) return -1;
  for (uint32_t i = 0; i < 3; ++i) {
    gridDim.m[i] = i < dimension ? grid_dim[i] : 1;
    blockDim.m[i] = (block_dim != 0 && i < dimension) ? block_dim[i] : 1;
  }
  uint32_t threads = (uint32_t)vx_num_threads();
  uint32_t warps = (uint32_t)vx_num_warps();
  uint32_t cores = (uint32_t)vx_num_cores();
  uint32_t core = (uint32_t)vx_core_id();

  uint32_t group_size = blockDim.x * blockDim.y * blockDim.z;
  if (group_size == 0 || group_size > threads * warps) return -1;
  uint32_t units = gridDim.x * gridDim.y * gridDim.z;  // tasks or CTAs
  if (units == 0) return 0;

  uint32_t warps_per_group = 1;
  uint32_t groups_per_core = 0;
  uint32_t per_core_capacity = threads * warps;
  if (group_size > 1) {
    warps_per_group = (group_size + threads - 1) / threads;
    groups_per_core = warps / warps_per_group;
    per_core_capacity = groups_per_core;
  }
  __warps_per_group = warps_per_group;

  uint32_t active_cores = (units + per_core_capacity - 1) / per_core_capacity;
  if (active_cores > cores) active_cores = cores;
  if (core >= active_cores) return 0;
  uint32_t base = units / active_cores;
  uint32_t extra = units % active_cores;
  vx_spawn_job_t job;
  job.stack_depth = 0;
  job.func = kernel_func;
  job.arg = arg;
  job.count = base + (core < extra ? 1 : 0);
  job.first = core * base + (core < extra ? core : extra);
  job.groups_per_core = groups_per_core;
  job.group_size = group_size;

  uint32_t active_warps;
  if (group_size == 1) {
    uint32_t full_batches = job.count / threads;
    active_warps = full_batches == 0 ? 1 : (full_batches < warps ? full_batches : warps);
  } else {
    uint32_t slots = job.count < groups_per_core ? job.count : groups_per_core;
    active_warps = slots * warps_per_group;
  }

  size_t saved_scratch = csr_swap(VX_CSR_MSCRATCH, &job);
  vx_wspawn((int)active_warps, __vx_spawn_entry);
  __vx_spawn_run_self(&job);
  vx_wspawn(1, 0);  // wait for the other warps
  csr_write(VX_CSR_MSCRATCH, saved_scratch);
  return 0;
}
