// The red-team candidates' honest part: linear_naive.cu's kernels under another name, so each
// cheat below is a correct candidate plus one cheat. Included, not built on its own.
#pragma once
#define vxsynth_candidate_launch redteam_honest_launch
#include "../linear_naive.cu"
#undef vxsynth_candidate_launch
