#include "design/no_op.h"

#include "design/hopper_family.h"
#include "design/transform_family.h"

namespace vxsynth::design {

std::vector<NoOpValue> no_op_values(const DesignPoint& d) {
  std::vector<NoOpValue> out;
  if (d.boundary == Boundary::kUniformBranch) {
    // The interior test is the kernel's: a block (a tile) whose rows and columns are all inside.
    std::int64_t rows = 0, cols = 0;
    if (is_transform(d)) {
      const TransposeView v = transpose_view(d.op);
      rows = v.rows;
      cols = v.cols;
    } else {
      const ops::GemmView g = d.op.gemm_view();
      rows = g.m;
      cols = g.n;
    }
    if (rows < d.tile.m || cols < d.tile.n) {
      out.push_back({Axis::kBoundary, "uniform_branch: no block is interior (" + std::to_string(rows) + " x " +
                                          std::to_string(cols) + " against a " + std::to_string(d.tile.m) + " x " +
                                          std::to_string(d.tile.n) + " tile), so the unpredicated path never runs"});
    }
  }
  if (d.entry_reads != 0) {
    out.push_back({Axis::kEntryReads, "entry_reads " + std::to_string(d.entry_reads) +
                                          ": reads of zeros that compute nothing (retired)"});
  }
  if (is_hopper(d) && d.cluster.m * d.cluster.n > 1 && d.multicast == Multicast::kNone) {
    out.push_back({Axis::kCluster, "cluster " + std::to_string(d.cluster.m) + "x" + std::to_string(d.cluster.n) +
                                       " without multicast: the blocks of a cluster share nothing"});
  }
  return out;
}

std::string describe(const std::vector<NoOpValue>& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : "; ") + to_string(v.axis) + ": " + v.why;
  return s;
}

}  // namespace vxsynth::design
