#include "codegen/component.h"

#include "common/error.h"

namespace vxsynth::codegen {

using design::DesignPoint;

std::string to_string(Backend b) { return b == Backend::kCuda ? "cuda" : "vortex"; }

void throw_missing_component(const char* family, const std::string& value, Backend backend) {
  throw WorkError(std::string("codegen: no ") + family + " component for value \"" + value + "\" on the " +
                  to_string(backend) + " backend (register one under src/codegen/components/" + family + "/)");
}

namespace {

template <typename Family>
const Family& select(const DesignPoint& d, Backend b) {
  return Registry<Family>::instance().get(Family::value_of(d), b);
}

}  // namespace

Context::Context(const DesignPoint& design, const Dialect& dialect, Backend backend)
    : d(design),
      x(dialect),
      dtype(ops::storage_dtype(design.fixed.precision)),
      mainloop(select<Mainloop>(design, backend)),
      staging(select<Staging>(design, backend)),
      pipeline(select<Pipeline>(design, backend)),
      boundary(select<BoundaryHandling>(design, backend)),
      epilogue(select<Epilogue>(design, backend)),
      split_k(select<SplitK>(design, backend)),
      k_range(select<KRange>(design, backend)) {}

std::string Context::source(char operand) const {
  return std::string("t.") + operand + (boundary.padded() ? "_pad" : "");
}

std::string Context::fetch_base(char operand) const {
  return std::string(1, operand) + (boundary.padded() ? "_tile_base" : "_base");
}

bool is_conv(const DesignPoint& d) { return d.op.kind == ops::OpKind::conv1d || d.op.kind == ops::OpKind::conv2d; }

bool channels_last(const DesignPoint& d) { return is_conv(d) && d.op.conv.layout == ops::ConvLayout::channels_last; }

std::string with_guard(const std::string& fmt, const std::string& guard) {
  std::string out = fmt;
  for (std::size_t pos = out.find("{G}"); pos != std::string::npos; pos = out.find("{G}", pos + guard.size())) {
    out.replace(pos, 3, guard);
  }
  return out;
}

int cp_async_elements(const DesignPoint& d, char operand) {
  const int bytes = design::cuda_tile_element_bytes(d);
  if (bytes == 2) return 2;  // validity's cp-async-element keeps the pairs contiguous and aligned
  if (d.fragment == design::Fragment::kNone) return 1;  // SIMT tiles are [k][row]: k is not contiguous there
  const bool is_a = operand == 'a';
  const bool k_fastest = (is_a ? a_contiguous_in_k(d) : b_contiguous_in_k(d)) &&
                         (is_a ? d.lane_a : d.lane_b) == design::LaneMap::kForward;
  if (!k_fastest || d.tile.k % 4 != 0) return 1;
  // Padded copies are [batch][rows][Kp] with Kp a multiple of the k-step, 256-byte aligned slices:
  // every group of four k is in range and 16-byte aligned. Otherwise K must be compiled in (other
  // K are declined) as a multiple of 4, so rows, batch bases and slice ends (multiples of the
  // k-step) keep groups whole and aligned; an implicit im2col row is not contiguous.
  if (d.boundary == design::Boundary::kPadded) return 4;
  if (is_a && is_conv(d)) return 1;
  return d.k_range == design::KRange::kFixed && d.fixed.shape.k % 4 == 0 ? 4 : 1;
}

bool a_contiguous_in_k(const DesignPoint& d) {
  if (d.boundary == design::Boundary::kPadded) return true;  // the padded copy is [batch][Mp][Kp]
  switch (d.op.kind) {
    case ops::OpKind::matmul: return !d.op.matmul.transpose_a;
    case ops::OpKind::conv1d:
    case ops::OpKind::conv2d: return channels_last(d);  // NCHW: neighbouring m are neighbouring x
    case ops::OpKind::linear:
    case ops::OpKind::layout_transform: break;  // transforms have their own emitter
  }
  return true;
}

bool b_contiguous_in_k(const DesignPoint& d) {
  if (d.boundary == design::Boundary::kPadded) return true;
  if (d.op.kind == ops::OpKind::matmul) return d.op.matmul.transpose_b;
  return true;  // weights are [n][k]
}

}  // namespace vxsynth::codegen
