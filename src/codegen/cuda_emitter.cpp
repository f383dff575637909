// The CUDA backend: kernels in an anonymous namespace and the candidate ABI's C entry points.
#include <sstream>

#include "codegen/compose.h"
#include "codegen/layout.h"
#include "codegen/cuda_abi.h"
#include "codegen/emit.h"
#include "codegen/hopper_emitter.h"
#include "codegen/transform_emitter.h"
#include "design/hopper_family.h"
#include "design/transform_family.h"
#include "design/validity.h"

namespace vxsynth::codegen {

using design::DesignPoint;

namespace {

bool is_workspace_field(const std::string& f) {
  return f == "partial" || f == "flags" || f == "pre" || f == "a_pad" || f == "b_pad";
}

const char* abi_activation(ops::Activation a) {
  switch (a) {
    case ops::Activation::relu: return "VXSYNTH_ACT_RELU";
    case ops::Activation::gelu: return "VXSYNTH_ACT_GELU";
    case ops::Activation::gelu_tanh: return "VXSYNTH_ACT_GELU_TANH";
    case ops::Activation::silu: return "VXSYNTH_ACT_SILU";
    default: return "VXSYNTH_ACT_NONE";
  }
}

std::string params_struct(const DesignPoint& d) {
  std::ostringstream s;
  s << "// Problem sizes of the GEMM view";
  if (is_conv(d)) s << " and of the convolution";
  s << ".\nstruct Params {\n";
  for (const auto& f : param_fields(d)) s << "idx_t " << f << ";\n";
  s << "};\n\n";
  return s.str();
}

std::string tensors_struct(const DesignPoint& d) {
  std::ostringstream s;
  s << "// Device tensors (workspace slices included).\nstruct Tensors {\n";
  for (const auto& f : tensor_fields(d, Backend::kCuda)) {
    if (f == "a" || f == "b" || f == "bias") s << "const elem_t* " << f << ";\n";
    else if (f == "partial" || f == "pre") s << "float* " << f << ";\n";
    else if (f == "flags") s << "int* flags;\n";
    else s << "elem_t* " << f << ";\n";
  }
  s << "};\n\n";
  return s.str();
}

// Host side: problem -> Params (declining problems this design was not generated for).
std::string host_code(const DesignPoint& d) {
  std::ostringstream s;
  const ops::DType dtype = ops::storage_dtype(d.fixed.precision);
  s << "// The problem as this design's Params; false when the design does not implement it.\n";
  s << "bool make_params(const vxsynth_problem* pr, Params* p) {\n";
  s << "if (pr == nullptr || pr->abi_version != VXSYNTH_CANDIDATE_ABI_VERSION) return false;\n";
  s << "if (pr->op_kind != " << abi_op(d.op.kind) << " || pr->dtype != " << abi_dtype(dtype)
    << " || pr->precision != " << abi_precision(d.fixed.precision) << ") return false;\n";
  s << "if (pr->has_bias != " << (d.op.has_bias() ? 1 : 0) << " || pr->activation != " << abi_activation(d.op.activation())
    << ") return false;\n";
  switch (d.op.kind) {
    case ops::OpKind::linear:
      s << "p->M = pr->m;\np->N = pr->n;\np->K = pr->k;\np->batch = 1;\n";
      break;
    case ops::OpKind::matmul: {
      const std::size_t rank = d.op.matmul.batch_out().size();
      s << "if (pr->transpose_a != " << (d.op.matmul.transpose_a ? 1 : 0) << " || pr->transpose_b != "
        << (d.op.matmul.transpose_b ? 1 : 0) << " || pr->batch_rank != " << rank << ") return false;\n";
      s << "p->M = pr->m;\np->N = pr->n;\np->K = pr->k;\np->batch = pr->batch_count;\n";
      if (rank > 0) {
        s << "for (int i = 0; i < VXSYNTH_MAX_BATCH_RANK; ++i) {\n"
          << "p->batch_dim[i] = i < pr->batch_rank ? pr->batch[i] : 1;\n"
          << "p->a_stride[i] = i < pr->batch_rank ? pr->a_batch_stride[i] : 0;\n"
          << "p->b_stride[i] = i < pr->batch_rank ? pr->b_batch_stride[i] : 0;\n}\n";
      }
      break;
    }
    case ops::OpKind::conv1d:
    case ops::OpKind::conv2d:
      s << "if (pr->layout != "
        << (d.op.conv.layout == ops::ConvLayout::channels_last ? "VXSYNTH_LAYOUT_CHANNELS_LAST" : "VXSYNTH_LAYOUT_CHANNELS_FIRST")
        << " || pr->groups < 1 || pr->c_in % pr->groups != 0 || pr->k_out % pr->groups != 0) return false;\n";
      s << "p->c_in = pr->c_in;\np->cg = pr->c_in / pr->groups;\np->h = pr->h;\np->w = pr->w;\np->k_out = pr->k_out;\n"
           "p->r = pr->r;\np->s = pr->s;\np->p = pr->p;\np->q = pr->q;\np->stride_h = pr->stride_h;\n"
           "p->stride_w = pr->stride_w;\np->pad_h = pr->pad_h;\np->pad_w = pr->pad_w;\np->dilation_h = pr->dilation_h;\n"
           "p->dilation_w = pr->dilation_w;\n";
      s << "p->M = pr->n_img * pr->p * pr->q;\np->N = pr->k_out / pr->groups;\np->K = p->cg * pr->r * pr->s;\n"
           "p->batch = pr->groups;\n";
      break;
    case ops::OpKind::layout_transform:
      break;  // emit_transform_cuda
  }
  if (d.k_range == design::KRange::kFixed) s << "if (p->K != kK) return false;  // compiled for one K\n";
  if (d.prefetch == design::Prefetch::kCpAsync && d.boundary != design::Boundary::kPadded &&
      d.k_range == design::KRange::kGeneric && cp_async_elements(d, 'a') == 2) {
    s << "if (p->K % 2 != 0) return false;  // cp_async: 4-byte pairs along k start 4-byte aligned only at an even K\n";
  }
  if (d.split_k > 1) s << "p->k_chunk = ((p->K + kBK - 1) / kBK + kSplit - 1) / kSplit * kBK;\n";
  if (d.boundary == design::Boundary::kPadded) {
    s << "p->Mp = (p->M + kBM - 1) / kBM * kBM;\np->Np = (p->N + kBN - 1) / kBN * kBN;\np->Kp = (p->K + kBK - 1) / kBK * kBK;\n";
  }
  s << "return p->M > 0 && p->N > 0 && p->K > 0 && p->batch > 0;\n}\n\n";

  // Workspace.
  s << "// Workspace slices, 256-byte aligned.\nstruct Workspace {\nsize_t total = 0;\n";
  for (const auto& f : tensor_fields(d, Backend::kCuda)) {
    if (is_workspace_field(f)) s << "size_t " << f << " = 0;\n";
  }
  s << "};\n\n";
  bool workspace = false;
  for (const auto& f : tensor_fields(d, Backend::kCuda)) workspace |= is_workspace_field(f);
  s << "Workspace workspace_layout(const Params& p) {\nWorkspace w;\n(void)p;\n";
  if (workspace) {
    s << "auto take = [&w](size_t bytes) {\nconst size_t at = w.total;\nw.total += (bytes + 255) / 256 * 256;\nreturn at;\n};\n";
  }
  for (const auto& f : tensor_fields(d, Backend::kCuda)) {
    if (f == "a_pad") s << "w.a_pad = take(sizeof(elem_t) * p.batch * p.Mp * p.Kp);\n";
    if (f == "b_pad") s << "w.b_pad = take(sizeof(elem_t) * p.batch * p.Np * p.Kp);\n";
    // split_reduce serial keeps one running sum per output; the two passes one sum per slice.
    if (f == "partial") {
      s << "w.partial = take(sizeof(float)" << (serial_split_k(d, Backend::kCuda) ? "" : " * kSplit") << " * p.batch * p.M * "
        << (d.split_reduce == design::SplitReduce::kSerialVector4 ? "((p.N + 3) / 4 * 4)" : "p.N") << ");\n";
    }
    // One flag per output tile of each batch: the slice whose turn it is.
    if (f == "flags") {
      s << "w.flags = take(sizeof(int) * p.batch * ((p.M + kBM - 1) / kBM) * ((p.N + kBN - 1) / kBN));\n";
    }
    if (f == "pre") s << "w.pre = take(sizeof(float) * p.batch * p.M * p.N);\n";
  }
  s << "return w;\n}\n\n";
  return s.str();
}

std::string entry_points(const DesignPoint& d) {
  std::ostringstream s;
  const auto list = passes(d, Backend::kCuda);
  s << "extern \"C\" size_t vxsynth_candidate_workspace_bytes(const vxsynth_problem* problem) {\n"
       "Params p{};\nif (!make_params(problem, &p)) return 0;\nreturn workspace_layout(p).total;\n}\n\n";
  s << "extern \"C\" int vxsynth_candidate_launch(const vxsynth_problem* problem, const vxsynth_buffers* buffers,\n"
       "cudaStream_t stream) {\n";
  s << "Params p{};\nif (!make_params(problem, &p)) return VXSYNTH_LAUNCH_UNSUPPORTED;\n";
  s << "const Workspace w = workspace_layout(p);\n";
  s << "if (w.total > 0 && (buffers->workspace == nullptr || buffers->workspace_bytes < w.total)) return 2;\n";
  bool workspace = false;
  for (const auto& f : tensor_fields(d, Backend::kCuda)) workspace |= is_workspace_field(f);
  if (workspace) s << "unsigned char* scratch = static_cast<unsigned char*>(buffers->workspace);\n";
  s << "Tensors t{};\n";
  for (const auto& f : tensor_fields(d, Backend::kCuda)) {
    if (f == "a" || f == "b" || f == "bias") s << "t." << f << " = static_cast<const elem_t*>(buffers->" << f << ");\n";
    else if (f == "out") s << "t.out = static_cast<elem_t*>(buffers->out);\n";
    else if (f == "partial" || f == "pre") s << "t." << f << " = reinterpret_cast<float*>(scratch + w." << f << ");\n";
    else if (f == "flags") s << "t.flags = reinterpret_cast<int*>(scratch + w.flags);\n";
    else s << "t." << f << " = reinterpret_cast<elem_t*>(scratch + w." << f << ");\n";
  }
  s << "const dim3 block(kThreads);\n";
  for (const Pass pass : list) {
    const std::string fn = pass_function(pass);
    if (pass == Pass::kGemm) {
      s << "const dim3 grid(static_cast<unsigned>((p.N + kBN - 1) / kBN), static_cast<unsigned>((p.M + kBM - 1) / kBM), "
           "static_cast<unsigned>(p.batch"
        << (d.split_k > 1 ? " * kSplit" : "") << "));\n";
      s << "if (grid.y > 65535u || grid.z > 65535u) return VXSYNTH_LAUNCH_UNSUPPORTED;\n";
      if (design::cuda_shared_bytes(d) > 48 * 1024) {
        s << "if (cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes) != cudaSuccess) "
             "return 3;\n";
      }
      if (serial_split_k(d, Backend::kCuda)) {
        s << "// The slices of a tile add their sums in turn, by the tile's flag: every flag starts at slice 0.\n"
             "if (cudaMemsetAsync(t.flags, 0, sizeof(int) * grid.x * grid.y * grid.z / kSplit, stream) != cudaSuccess) "
             "return 4;\n";
      }
      s << "gemm<<<grid, block, " << (design::cuda_shared_bytes(d) > 0 ? "kSharedBytes" : "0") << ", stream>>>(p, t);\n";
    } else {
      std::string total;
      switch (pass) {
        case Pass::kPadA: total = "p.batch * p.Mp * p.Kp"; break;
        case Pass::kPadB: total = "p.batch * p.Np * p.Kp"; break;
        default: total = "p.batch * p.M * p.N"; break;
      }
      s << "{\nconst idx_t total = " << total << ";\n"
        << fn << "<<<static_cast<unsigned>((total + kThreads - 1) / kThreads), block, 0, stream>>>(p, t, total);\n}\n";
    }
  }
  s << "return cudaGetLastError() == cudaSuccess ? VXSYNTH_LAUNCH_OK : 4;\n}\n";
  return s.str();
}

}  // namespace

std::string main_kernel_name(const DesignPoint& d) { return design::is_transform(d) ? "transform" : "gemm"; }

// The candidate's text before lay_out.
static std::string flat_cuda(const DesignPoint& d) {
  if (design::is_transform(d)) return emit_transform_cuda(d);
  if (design::is_hopper(d)) return emit_hopper_cuda(d);
  design::require_valid(d, "design " + design::procedural_name(d));
  const Composer c(d, Backend::kCuda);
  const ops::DType dtype = ops::storage_dtype(d.fixed.precision);
  std::ostringstream s;
  s << header_comment(d, Backend::kCuda) << "\n";
  s << "#include <cuda_runtime.h>\n";
  if (dtype == ops::DType::bf16) s << "#include <cuda_bf16.h>\n";
  if (dtype == ops::DType::f16) s << "#include <cuda_fp16.h>\n";
  s << c.includes();
  s << "\n#include \"vxsynth_candidate.h\"\n\nnamespace {\n\n";
  s << c.preamble();
  s << c.constants() << "\n" << params_struct(d) << tensors_struct(d) << c.scalar_helpers() << "\n" << c.accessors()
    << c.mainloop_functions();
  for (const Pass pass : passes(d, Backend::kCuda)) {
    if (pass == Pass::kGemm) {
      s << "// The GEMM kernel: frame, mainloop, epilogue.\n";
      s << "__global__ __launch_bounds__(kThreads) void gemm(const Params p, const Tensors t) {\n" << c.gemm_body() << "}\n\n";
    } else {
      s << "__global__ __launch_bounds__(kThreads) void " << pass_function(pass)
        << "(const Params p, const Tensors t, idx_t total) {\n"
        << "const idx_t idx = static_cast<idx_t>(blockIdx.x) * kThreads + threadIdx.x;\nif (idx >= total) return;\n"
        << c.elementwise_body(pass) << "}\n\n";
    }
  }
  s << host_code(d) << "}  // namespace\n\n" << entry_points(d);
  return s.str();
}

std::string emit_cuda(const DesignPoint& d) { return lay_out(flat_cuda(d)); }

}  // namespace vxsynth::codegen
