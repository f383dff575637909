#include "ops/op_spec.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"
#include "common/json_io.h"

namespace vxsynth::ops {

std::string to_string(OpKind k) {
  switch (k) {
    case OpKind::linear: return "linear";
    case OpKind::matmul: return "matmul";
    case OpKind::conv1d: return "conv1d";
    case OpKind::conv2d: return "conv2d";
    case OpKind::layout_transform: return "layout_transform";
  }
  return "?";
}

bool parse_op_kind(const std::string& s, OpKind& out) {
  if (s == "linear") { out = OpKind::linear; return true; }
  if (s == "matmul") { out = OpKind::matmul; return true; }
  if (s == "conv1d") { out = OpKind::conv1d; return true; }
  if (s == "conv2d") { out = OpKind::conv2d; return true; }
  if (s == "layout_transform") { out = OpKind::layout_transform; return true; }
  return false;
}

std::string to_string(Activation a) {
  switch (a) {
    case Activation::none: return "none";
    case Activation::relu: return "relu";
    case Activation::gelu: return "gelu";
    case Activation::gelu_tanh: return "gelu_tanh";
    case Activation::silu: return "silu";
  }
  return "?";
}

bool parse_activation(const std::string& s, Activation& out) {
  static const std::pair<const char*, Activation> names[] = {
      {"none", Activation::none}, {"relu", Activation::relu}, {"gelu", Activation::gelu},
      {"gelu_tanh", Activation::gelu_tanh}, {"silu", Activation::silu}};
  for (const auto& [n, a] : names) {
    if (s == n) { out = a; return true; }
  }
  return false;
}

double apply_activation(Activation a, double v) {
  switch (a) {
    case Activation::none: return v;
    case Activation::relu: return v > 0.0 ? v : 0.0;
    case Activation::gelu: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case Activation::gelu_tanh: {
      const double c = std::sqrt(2.0 / 3.14159265358979323846);
      return 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)));
    }
    case Activation::silu: return v / (1.0 + std::exp(-v));
  }
  return v;
}

std::string layout_name(ConvLayout l, int spatial_dims) {
  if (spatial_dims == 1) return l == ConvLayout::channels_first ? "NCL" : "NLC";
  return l == ConvLayout::channels_first ? "NCHW" : "NHWC";
}

Shape MatmulParams::batch_out() const {
  const std::size_t rank = std::max(batch_a.size(), batch_b.size());
  Shape out(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - batch_a.size() ? 1 : batch_a[i - (rank - batch_a.size())];
    const std::int64_t db = i < rank - batch_b.size() ? 1 : batch_b[i - (rank - batch_b.size())];
    out[i] = da == 1 ? db : da;  // validate() rejects da != db when neither is 1
  }
  return out;
}

std::vector<std::int64_t> ConvParams::output_size() const {
  std::vector<std::int64_t> out(input_size.size());
  for (std::size_t i = 0; i < input_size.size(); ++i) {
    const std::int64_t span = dilation[i] * (kernel[i] - 1) + 1;
    const std::int64_t room = input_size[i] + 2 * padding[i] - span;
    out[i] = room < 0 ? 0 : room / stride[i] + 1;
  }
  return out;
}

std::int64_t TransformParams::positions() const {
  std::int64_t p = 1;
  for (auto v : spatial) p *= v;
  return p;
}

int OpSpec::spatial_dims() const {
  if (kind == OpKind::conv1d) return 1;
  if (kind == OpKind::conv2d) return 2;
  return 0;
}

std::int64_t OpSpec::reduction_length() const { return gemm_view().k; }

GemmView OpSpec::gemm_view() const {
  GemmView g;
  switch (kind) {
    case OpKind::linear:
      g.m = linear.m; g.n = linear.n; g.k = linear.k;
      break;
    case OpKind::matmul:
      g.batch = shape_numel(matmul.batch_out());
      g.m = matmul.m; g.n = matmul.n; g.k = matmul.k;
      break;
    case OpKind::conv1d:
    case OpKind::conv2d: {
      const auto out = conv.output_size();
      g.batch = conv.groups;
      g.m = conv.batch;
      for (auto o : out) g.m *= o;
      g.n = conv.out_channels / std::max<std::int64_t>(conv.groups, 1);
      g.k = conv.in_channels / std::max<std::int64_t>(conv.groups, 1);
      for (auto k : conv.kernel) g.k *= k;
      break;
    }
    case OpKind::layout_transform:
      g.batch = transform.batch;
      g.m = transform.channels;
      g.n = transform.positions();
      g.k = 1;
      break;
  }
  return g;
}

double OpSpec::flops() const {
  if (kind == OpKind::layout_transform) return 0.0;
  const GemmView g = gemm_view();
  return 2.0 * static_cast<double>(g.batch) * static_cast<double>(g.m) * static_cast<double>(g.n) *
         static_cast<double>(g.k);
}

bool OpSpec::has_bias() const {
  if (kind == OpKind::linear) return linear.bias;
  if (kind == OpKind::matmul || kind == OpKind::layout_transform) return false;
  return conv.bias;
}

Activation OpSpec::activation() const {
  if (kind == OpKind::linear) return linear.activation;
  if (kind == OpKind::matmul || kind == OpKind::layout_transform) return Activation::none;
  return conv.activation;
}

std::vector<TensorDesc> OpSpec::inputs() const {
  const DType t = storage_dtype(precision);
  std::vector<TensorDesc> v;
  switch (kind) {
    case OpKind::linear:
      v.push_back({"x", t, {linear.m, linear.k}});
      v.push_back({"weight", t, {linear.n, linear.k}});
      if (linear.bias) v.push_back({"bias", t, {linear.n}});
      break;
    case OpKind::matmul: {
      Shape a = matmul.batch_a, b = matmul.batch_b;
      if (matmul.transpose_a) { a.push_back(matmul.k); a.push_back(matmul.m); }
      else { a.push_back(matmul.m); a.push_back(matmul.k); }
      if (matmul.transpose_b) { b.push_back(matmul.n); b.push_back(matmul.k); }
      else { b.push_back(matmul.k); b.push_back(matmul.n); }
      v.push_back({"a", t, a});
      v.push_back({"b", t, b});
      break;
    }
    case OpKind::conv1d:
    case OpKind::conv2d: {
      Shape x{conv.batch}, w{conv.out_channels};
      const std::int64_t cin_g = conv.in_channels / std::max<std::int64_t>(conv.groups, 1);
      if (conv.layout == ConvLayout::channels_first) {
        x.push_back(conv.in_channels);
        x.insert(x.end(), conv.input_size.begin(), conv.input_size.end());
        w.push_back(cin_g);
        w.insert(w.end(), conv.kernel.begin(), conv.kernel.end());
      } else {
        x.insert(x.end(), conv.input_size.begin(), conv.input_size.end());
        x.push_back(conv.in_channels);
        w.insert(w.end(), conv.kernel.begin(), conv.kernel.end());
        w.push_back(cin_g);
      }
      v.push_back({"input", t, x});
      v.push_back({"weight", t, w});
      if (conv.bias) v.push_back({"bias", t, {conv.out_channels}});
      break;
    }
    case OpKind::layout_transform:
      v.push_back({"x", t, transform_shape(transform, transform.from)});
      break;
  }
  return v;
}

Shape transform_shape(const TransformParams& p, ConvLayout layout) {
  Shape s{p.batch};
  if (layout == ConvLayout::channels_first) s.push_back(p.channels);
  s.insert(s.end(), p.spatial.begin(), p.spatial.end());
  if (layout == ConvLayout::channels_last) s.push_back(p.channels);
  return s;
}

TensorDesc OpSpec::output() const {
  const DType t = storage_dtype(precision);
  switch (kind) {
    case OpKind::linear: return {"y", t, {linear.m, linear.n}};
    case OpKind::matmul: {
      Shape s = matmul.batch_out();
      s.push_back(matmul.m);
      s.push_back(matmul.n);
      return {"y", t, s};
    }
    case OpKind::conv1d:
    case OpKind::conv2d: {
      const auto o = conv.output_size();
      Shape s{conv.batch};
      if (conv.layout == ConvLayout::channels_first) {
        s.push_back(conv.out_channels);
        s.insert(s.end(), o.begin(), o.end());
      } else {
        s.insert(s.end(), o.begin(), o.end());
        s.push_back(conv.out_channels);
      }
      return {"y", t, s};
    }
    case OpKind::layout_transform: return {"y", t, transform_shape(transform, transform.to)};
  }
  return {"y", t, {}};
}

PrecisionPath vortex_path_for(PrecisionPath cuda_path) {
  return cuda_path == PrecisionPath::tf32 ? PrecisionPath::fp16 : cuda_path;
}

namespace {

// Keeps sizes far from int64 overflow in products like M*N*K.
constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;

void require_positive(std::int64_t v, const std::string& file, const std::string& field) {
  if (v <= 0 || v > kMaxDim) {
    throw InputError(file, field, "must be a positive integer below 2^31 (found " + std::to_string(v) + ")");
  }
}

std::string section_name(OpKind k) {
  if (k == OpKind::layout_transform) return "transform";
  return k == OpKind::linear ? "linear" : k == OpKind::matmul ? "matmul" : "conv";
}

}  // namespace

void OpSpec::validate(const std::string& file) const {
  if (vortex_precision != precision &&
      !(precision == PrecisionPath::tf32 && vortex_precision == PrecisionPath::fp16)) {
    throw InputError(file, "vortex_precision",
                     "\"" + to_string(vortex_precision) + "\" cannot stand for \"" + to_string(precision) +
                         "\": it must equal precision, or be fp16 for a tf32 op");
  }
  switch (kind) {
    case OpKind::linear:
      require_positive(linear.m, file, "linear.m");
      require_positive(linear.n, file, "linear.n");
      require_positive(linear.k, file, "linear.k");
      break;
    case OpKind::matmul: {
      require_positive(matmul.m, file, "matmul.m");
      require_positive(matmul.n, file, "matmul.n");
      require_positive(matmul.k, file, "matmul.k");
      for (auto d : matmul.batch_a) require_positive(d, file, "matmul.batch_a");
      for (auto d : matmul.batch_b) require_positive(d, file, "matmul.batch_b");
      const std::size_t rank = std::max(matmul.batch_a.size(), matmul.batch_b.size());
      for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t da = i < rank - matmul.batch_a.size() ? 1 : matmul.batch_a[i - (rank - matmul.batch_a.size())];
        const std::int64_t db = i < rank - matmul.batch_b.size() ? 1 : matmul.batch_b[i - (rank - matmul.batch_b.size())];
        if (da != db && da != 1 && db != 1) {
          throw InputError(file, "matmul.batch_b",
                           "batch dims " + shape_to_string(matmul.batch_a) + " and " +
                               shape_to_string(matmul.batch_b) + " do not broadcast");
        }
      }
      break;
    }
    case OpKind::conv1d:
    case OpKind::conv2d: {
      const std::size_t nd = static_cast<std::size_t>(spatial_dims());
      const std::pair<const char*, const std::vector<std::int64_t>*> lists[] = {
          {"conv.input_size", &conv.input_size}, {"conv.kernel", &conv.kernel},
          {"conv.stride", &conv.stride}, {"conv.padding", &conv.padding}, {"conv.dilation", &conv.dilation}};
      for (const auto& [field, list] : lists) {
        if (list->size() != nd) {
          throw InputError(file, field, "needs " + std::to_string(nd) + " entr" + (nd == 1 ? "y" : "ies") +
                                            " for " + to_string(kind) + " (found " + std::to_string(list->size()) + ")");
        }
        for (auto v : *list) {
          if (std::string(field) == "conv.padding") {
            if (v < 0 || v > kMaxDim) throw InputError(file, field, "must be non-negative");
          } else {
            require_positive(v, file, field);
          }
        }
      }
      require_positive(conv.batch, file, "conv.batch");
      require_positive(conv.in_channels, file, "conv.in_channels");
      require_positive(conv.out_channels, file, "conv.out_channels");
      require_positive(conv.groups, file, "conv.groups");
      if (conv.in_channels % conv.groups != 0 || conv.out_channels % conv.groups != 0) {
        throw InputError(file, "conv.groups",
                         "groups = " + std::to_string(conv.groups) + " must divide in_channels (" +
                             std::to_string(conv.in_channels) + ") and out_channels (" +
                             std::to_string(conv.out_channels) + ")");
      }
      for (auto o : conv.output_size()) {
        if (o <= 0) {
          throw InputError(file, "conv.kernel", "the dilated kernel is larger than the padded input: empty output");
        }
      }
      break;
    }
    case OpKind::layout_transform: {
      if (precision == PrecisionPath::tf32) {
        throw InputError(file, "precision",
                         "a layout transform moves values without arithmetic: fp32, bf16 or fp16 (tf32 is a "
                         "multiply mode; the tensors of a tf32 conv are fp32)");
      }
      require_positive(transform.batch, file, "transform.batch");
      require_positive(transform.channels, file, "transform.channels");
      if (transform.spatial.size() != 1 && transform.spatial.size() != 2) {
        throw InputError(file, "transform.spatial",
                         "needs 1 entry (NCL <-> NLC) or 2 (NCHW <-> NHWC), found " +
                             std::to_string(transform.spatial.size()));
      }
      for (auto v : transform.spatial) require_positive(v, file, "transform.spatial");
      if (transform.from == transform.to) {
        throw InputError(file, "transform.to",
                         "equals transform.from (\"" + layout_name(transform.from, static_cast<int>(transform.spatial.size())) +
                             "\"): a transform changes the layout");
      }
      if (transform.tensor != "activation" && transform.tensor != "weight") {
        throw InputError(file, "transform.tensor", "expected \"activation\" or \"weight\" (found \"" + transform.tensor + "\")");
      }
      break;
    }
  }
  // Every tensor must be addressable: at most 2^40 elements (computed in fp64, no overflow).
  std::vector<TensorDesc> all = inputs();
  all.push_back(output());
  for (const TensorDesc& d : all) {
    double n = 1.0;
    for (auto v : d.shape) n *= static_cast<double>(v);
    if (n > std::ldexp(1.0, 40)) {
      throw InputError(file, section_name(kind), "tensor \"" + d.name + "\" of shape " + shape_to_string(d.shape) +
                                                     " has more than 2^40 elements");
    }
  }
}

// ---------------------------------------------------------------- JSON

namespace {

void reject_unknown(const Json& j, const std::set<std::string>& known, const std::string& file,
                    const std::string& prefix) {
  for (const auto& [key, value] : j.items()) {
    if (!known.count(key)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw InputError(file, prefix + key, "unknown field (expected one of: " + list + ")");
    }
  }
}

std::int64_t get_int(const Json& j, const std::string& key, const std::string& file, const std::string& prefix) {
  if (!j.contains(key)) throw InputError(file, prefix + key, "missing");
  if (!j[key].is_number_integer()) {
    throw InputError(file, prefix + key, std::string("must be an integer (found ") + j[key].type_name() + ")");
  }
  return j[key].get<std::int64_t>();
}

bool get_bool(const Json& j, const std::string& key, bool def, const std::string& file, const std::string& prefix) {
  if (!j.contains(key)) return def;
  if (!j[key].is_boolean()) throw InputError(file, prefix + key, "must be true or false");
  return j[key].get<bool>();
}

Activation get_activation(const Json& j, const std::string& file, const std::string& prefix) {
  if (!j.contains("activation")) return Activation::none;
  Activation a;
  if (!j["activation"].is_string() || !parse_activation(j["activation"].get<std::string>(), a)) {
    throw InputError(file, prefix + "activation", "expected one of none, relu, gelu, gelu_tanh, silu");
  }
  return a;
}

Shape get_int_list(const Json& j, const std::string& key, const std::string& file, const std::string& prefix,
                   std::size_t scalar_broadcast, bool required, std::int64_t def) {
  if (!j.contains(key)) {
    if (required) throw InputError(file, prefix + key, "missing");
    return Shape(scalar_broadcast, def);
  }
  const Json& v = j[key];
  if (v.is_number_integer()) return Shape(scalar_broadcast == 0 ? 1 : scalar_broadcast, v.get<std::int64_t>());
  if (!v.is_array()) throw InputError(file, prefix + key, "must be a list of integers");
  Shape out;
  for (const auto& e : v) {
    if (!e.is_number_integer()) throw InputError(file, prefix + key, "must be a list of integers");
    out.push_back(e.get<std::int64_t>());
  }
  return out;
}

PrecisionPath get_path(const Json& j, const std::string& key, const std::string& file) {
  PrecisionPath p;
  if (!j.contains(key)) throw InputError(file, key, "missing (expected fp32, tf32, bf16 or fp16)");
  if (!j[key].is_string() || !parse_precision_path(j[key].get<std::string>(), p)) {
    throw InputError(file, key, "expected fp32, tf32, bf16 or fp16");
  }
  return p;
}

}  // namespace

OpSpec op_spec_from_json(const Json& j, const std::string& file) {
  if (!j.is_object()) throw InputError(file, "", "an op spec must be a JSON object");
  require_schema(j, kOpSchemaKind, kOpSchemaVersion, file);
  reject_unknown(j, {"schema", "name", "kind", "precision", "vortex_precision", "linear", "matmul", "conv", "transform"},
                 file, "");
  OpSpec s;
  if (j.contains("name")) s.name = get_field<std::string>(j, "name", file);
  const auto kind = get_field<std::string>(j, "kind", file);
  if (!parse_op_kind(kind, s.kind)) {
    throw InputError(file, "kind",
                     "unknown op kind \"" + kind + "\" (expected linear, matmul, conv1d, conv2d or layout_transform)");
  }
  s.precision = get_path(j, "precision", file);
  s.vortex_precision = j.contains("vortex_precision") ? get_path(j, "vortex_precision", file)
                                                      : vortex_path_for(s.precision);
  const std::string section = section_name(s.kind);
  for (const char* other : {"linear", "matmul", "conv", "transform"}) {
    if (other != section && j.contains(other)) {
      throw InputError(file, other, "section does not belong to a " + kind + " op (expected \"" + section + "\")");
    }
  }
  if (!j.contains(section) || !j[section].is_object()) {
    throw InputError(file, section, "missing object with the " + kind + " parameters");
  }
  const Json& p = j[section];
  const std::string pre = section + ".";
  switch (s.kind) {
    case OpKind::linear:
      reject_unknown(p, {"m", "n", "k", "bias", "activation"}, file, pre);
      s.linear.m = get_int(p, "m", file, pre);
      s.linear.n = get_int(p, "n", file, pre);
      s.linear.k = get_int(p, "k", file, pre);
      s.linear.bias = get_bool(p, "bias", false, file, pre);
      s.linear.activation = get_activation(p, file, pre);
      break;
    case OpKind::matmul:
      reject_unknown(p, {"batch_a", "batch_b", "m", "n", "k", "transpose_a", "transpose_b"}, file, pre);
      s.matmul.batch_a = get_int_list(p, "batch_a", file, pre, 0, false, 1);
      s.matmul.batch_b = get_int_list(p, "batch_b", file, pre, 0, false, 1);
      s.matmul.m = get_int(p, "m", file, pre);
      s.matmul.n = get_int(p, "n", file, pre);
      s.matmul.k = get_int(p, "k", file, pre);
      s.matmul.transpose_a = get_bool(p, "transpose_a", false, file, pre);
      s.matmul.transpose_b = get_bool(p, "transpose_b", false, file, pre);
      break;
    case OpKind::conv1d:
    case OpKind::conv2d: {
      reject_unknown(p, {"batch", "in_channels", "out_channels", "input_size", "kernel", "stride", "padding",
                         "dilation", "groups", "bias", "activation", "layout"},
                     file, pre);
      const std::size_t nd = static_cast<std::size_t>(s.spatial_dims());
      s.conv.batch = get_int(p, "batch", file, pre);
      s.conv.in_channels = get_int(p, "in_channels", file, pre);
      s.conv.out_channels = get_int(p, "out_channels", file, pre);
      s.conv.input_size = get_int_list(p, "input_size", file, pre, nd, true, 0);
      s.conv.kernel = get_int_list(p, "kernel", file, pre, nd, true, 0);
      s.conv.stride = get_int_list(p, "stride", file, pre, nd, false, 1);
      s.conv.padding = get_int_list(p, "padding", file, pre, nd, false, 0);
      s.conv.dilation = get_int_list(p, "dilation", file, pre, nd, false, 1);
      s.conv.groups = p.contains("groups") ? get_int(p, "groups", file, pre) : 1;
      s.conv.bias = get_bool(p, "bias", false, file, pre);
      s.conv.activation = get_activation(p, file, pre);
      if (p.contains("layout")) {
        const std::string l = p["layout"].is_string() ? p["layout"].get<std::string>() : "";
        if (l == layout_name(ConvLayout::channels_first, static_cast<int>(nd))) {
          s.conv.layout = ConvLayout::channels_first;
        } else if (l == layout_name(ConvLayout::channels_last, static_cast<int>(nd))) {
          s.conv.layout = ConvLayout::channels_last;
        } else {
          throw InputError(file, pre + "layout",
                           "expected \"" + layout_name(ConvLayout::channels_first, static_cast<int>(nd)) +
                               "\" or \"" + layout_name(ConvLayout::channels_last, static_cast<int>(nd)) +
                               "\" for " + kind);
        }
      }
      break;
    }
    case OpKind::layout_transform: {
      reject_unknown(p, {"batch", "channels", "spatial", "from", "to", "tensor"}, file, pre);
      s.transform.batch = get_int(p, "batch", file, pre);
      s.transform.channels = get_int(p, "channels", file, pre);
      s.transform.spatial = get_int_list(p, "spatial", file, pre, 1, true, 0);
      const int nd = static_cast<int>(s.transform.spatial.size());
      auto layout = [&](const char* key) {
        if (!p.contains(key)) throw InputError(file, pre + key, "missing (\"NCL\"/\"NLC\" or \"NCHW\"/\"NHWC\")");
        const std::string l = p[key].is_string() ? p[key].get<std::string>() : "";
        if (nd == 1 || nd == 2) {
          if (l == layout_name(ConvLayout::channels_first, nd)) return ConvLayout::channels_first;
          if (l == layout_name(ConvLayout::channels_last, nd)) return ConvLayout::channels_last;
        }
        throw InputError(file, pre + key,
                         nd == 1   ? "expected \"NCL\" or \"NLC\" for one spatial dimension"
                         : nd == 2 ? "expected \"NCHW\" or \"NHWC\" for two spatial dimensions"
                                   : "transform.spatial needs 1 or 2 entries");
      };
      s.transform.from = layout("from");
      s.transform.to = layout("to");
      if (p.contains("tensor")) {
        if (!p["tensor"].is_string()) throw InputError(file, pre + "tensor", "expected \"activation\" or \"weight\"");
        s.transform.tensor = p["tensor"].get<std::string>();
      }
      break;
    }
  }
  s.validate(file);
  return s;
}

Json op_spec_to_json(const OpSpec& s) {
  Json j;
  j["schema"] = schema_id(kOpSchemaKind, kOpSchemaVersion);
  j["name"] = s.name;
  j["kind"] = to_string(s.kind);
  j["precision"] = to_string(s.precision);
  j["vortex_precision"] = to_string(s.vortex_precision);
  Json p;
  switch (s.kind) {
    case OpKind::linear:
      p["m"] = s.linear.m; p["n"] = s.linear.n; p["k"] = s.linear.k;
      p["bias"] = s.linear.bias;
      p["activation"] = to_string(s.linear.activation);
      j["linear"] = p;
      break;
    case OpKind::matmul:
      p["batch_a"] = s.matmul.batch_a; p["batch_b"] = s.matmul.batch_b;
      p["m"] = s.matmul.m; p["n"] = s.matmul.n; p["k"] = s.matmul.k;
      p["transpose_a"] = s.matmul.transpose_a; p["transpose_b"] = s.matmul.transpose_b;
      j["matmul"] = p;
      break;
    case OpKind::conv1d:
    case OpKind::conv2d:
      p["batch"] = s.conv.batch;
      p["in_channels"] = s.conv.in_channels;
      p["out_channels"] = s.conv.out_channels;
      p["input_size"] = s.conv.input_size;
      p["kernel"] = s.conv.kernel;
      p["stride"] = s.conv.stride;
      p["padding"] = s.conv.padding;
      p["dilation"] = s.conv.dilation;
      p["groups"] = s.conv.groups;
      p["bias"] = s.conv.bias;
      p["activation"] = to_string(s.conv.activation);
      p["layout"] = layout_name(s.conv.layout, s.spatial_dims());
      j["conv"] = p;
      break;
    case OpKind::layout_transform: {
      const int nd = static_cast<int>(s.transform.spatial.size());
      p["batch"] = s.transform.batch;
      p["channels"] = s.transform.channels;
      p["spatial"] = s.transform.spatial;
      p["from"] = layout_name(s.transform.from, nd);
      p["to"] = layout_name(s.transform.to, nd);
      p["tensor"] = s.transform.tensor;
      j["transform"] = p;
      break;
    }
  }
  return j;
}

OpSpec read_op_spec(const std::string& path) { return op_spec_from_json(read_json_file(path), path); }

void write_op_spec(const std::string& path, const OpSpec& spec) { write_json_file(path, op_spec_to_json(spec)); }

OpSpec make_linear(std::string name, PrecisionPath p, std::int64_t m, std::int64_t n, std::int64_t k, bool bias,
                   Activation act) {
  OpSpec s;
  s.name = std::move(name);
  s.kind = OpKind::linear;
  s.precision = p;
  s.vortex_precision = vortex_path_for(p);
  s.linear = {m, n, k, bias, act};
  s.validate();
  return s;
}

OpSpec make_matmul(std::string name, PrecisionPath p, Shape batch_a, Shape batch_b, std::int64_t m, std::int64_t n,
                   std::int64_t k, bool transpose_a, bool transpose_b) {
  OpSpec s;
  s.name = std::move(name);
  s.kind = OpKind::matmul;
  s.precision = p;
  s.vortex_precision = vortex_path_for(p);
  s.matmul.batch_a = std::move(batch_a);
  s.matmul.batch_b = std::move(batch_b);
  s.matmul.m = m; s.matmul.n = n; s.matmul.k = k;
  s.matmul.transpose_a = transpose_a;
  s.matmul.transpose_b = transpose_b;
  s.validate();
  return s;
}

OpSpec make_conv(std::string name, PrecisionPath p, std::int64_t batch, std::int64_t in_channels,
                 std::int64_t out_channels, std::vector<std::int64_t> input_size, std::vector<std::int64_t> kernel,
                 std::vector<std::int64_t> stride, std::vector<std::int64_t> padding,
                 std::vector<std::int64_t> dilation, std::int64_t groups, bool bias, ConvLayout layout,
                 Activation act) {
  OpSpec s;
  s.name = std::move(name);
  s.kind = input_size.size() == 1 ? OpKind::conv1d : OpKind::conv2d;
  s.precision = p;
  s.vortex_precision = vortex_path_for(p);
  s.conv.batch = batch;
  s.conv.in_channels = in_channels;
  s.conv.out_channels = out_channels;
  s.conv.input_size = std::move(input_size);
  s.conv.kernel = std::move(kernel);
  s.conv.stride = std::move(stride);
  s.conv.padding = std::move(padding);
  s.conv.dilation = std::move(dilation);
  s.conv.groups = groups;
  s.conv.bias = bias;
  s.conv.layout = layout;
  s.conv.activation = act;
  s.validate();
  return s;
}

}  // namespace vxsynth::ops

namespace vxsynth::ops {

OpSpec make_transform(std::string name, PrecisionPath p, std::int64_t batch, std::int64_t channels,
                      std::vector<std::int64_t> spatial, ConvLayout from, ConvLayout to, std::string tensor) {
  OpSpec s;
  s.name = std::move(name);
  s.kind = OpKind::layout_transform;
  s.precision = p;
  s.vortex_precision = p;
  s.transform.batch = batch;
  s.transform.channels = channels;
  s.transform.spatial = std::move(spatial);
  s.transform.from = from;
  s.transform.to = to;
  s.transform.tensor = std::move(tensor);
  s.validate();
  return s;
}

}  // namespace vxsynth::ops
