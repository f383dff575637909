#include "ops/tensor_file.h"

#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "common/error.h"
#include "common/json_io.h"

namespace vxsynth::ops {

static_assert(std::endian::native == std::endian::little,
              "tensor files and Tensor hold little-endian bytes; big-endian hosts need byte swaps");

namespace {

constexpr std::size_t kPrefix = 16;  // magic + header length
constexpr std::size_t kAlign = 64;
constexpr std::uint64_t kMaxHeader = 1u << 20;

void put_u64(char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
}

std::uint64_t get_u64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

void write_tensor_file(const std::string& path, const Tensor& t) {
  Json h;
  h["schema"] = schema_id("tensor", kTensorFileVersion);
  h["name"] = t.name();
  h["dtype"] = to_string(t.dtype());
  h["shape"] = t.shape();
  h["byte_order"] = "little";
  if (t.seed()) h["seed"] = *t.seed(); else h["seed"] = nullptr;
  std::string header = h.dump();
  const std::size_t padded = (kPrefix + header.size() + kAlign - 1) / kAlign * kAlign;
  header.append(padded - kPrefix - header.size(), ' ');

  char prefix[kPrefix];
  std::memcpy(prefix, kTensorFileMagic, 8);
  put_u64(prefix + 8, header.size());

  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw WorkError("cannot write tensor file " + tmp);
    out.write(prefix, kPrefix);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(t.data()), static_cast<std::streamsize>(t.byte_size()));
    if (!out) throw WorkError("short write to tensor file " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw WorkError("cannot rename " + tmp + " to " + path);
  }
}

Tensor read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open tensor file");
  unsigned char prefix[kPrefix];
  in.read(reinterpret_cast<char*>(prefix), kPrefix);
  if (in.gcount() != static_cast<std::streamsize>(kPrefix) ||
      std::memcmp(prefix, kTensorFileMagic, 8) != 0) {
    throw InputError(path, "magic", "not a vxsynth tensor file (expected the 8 bytes \"VXTENSOR\")");
  }
  const std::uint64_t header_len = get_u64(prefix + 8);
  if (header_len == 0 || header_len > kMaxHeader) {
    throw InputError(path, "header_length", "implausible header length " + std::to_string(header_len));
  }
  std::string header(header_len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));
  if (in.gcount() != static_cast<std::streamsize>(header_len)) {
    throw InputError(path, "header", "file ends inside the JSON header");
  }
  Json h;
  try {
    h = Json::parse(header);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, "header", std::string("JSON header does not parse: ") + e.what());
  }
  require_schema(h, "tensor", kTensorFileVersion, path);
  const auto dtype_name = get_field<std::string>(h, "dtype", path);
  DType dtype;
  if (!parse_dtype(dtype_name, dtype)) {
    throw InputError(path, "dtype", "unknown dtype \"" + dtype_name + "\" (expected float32, bfloat16 or float16)");
  }
  if (h.contains("byte_order") && h["byte_order"] != "little") {
    throw InputError(path, "byte_order", "only \"little\" is supported");
  }
  if (!h.contains("shape") || !h["shape"].is_array()) throw InputError(path, "shape", "missing or not an array");
  Shape shape;
  for (const auto& d : h["shape"]) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0) {
      throw InputError(path, "shape", "dimensions must be non-negative integers");
    }
    shape.push_back(d.get<std::int64_t>());
  }
  // Check the data length before allocating: a corrupt shape must not allocate petabytes.
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(static_cast<std::streamoff>(kPrefix + header_len));
  const std::uint64_t data_bytes = file_size - kPrefix - header_len;
  double want = dtype_size(dtype);
  for (auto d : shape) want *= static_cast<double>(d);
  if (want != static_cast<double>(data_bytes)) {
    char need[64];
    std::snprintf(need, sizeof need, "%.0f", want);
    const std::string what = want < static_cast<double>(data_bytes) ? "trailing bytes: " : "file too short: ";
    throw InputError(path, "data", what + "shape " + shape_to_string(shape) + " of " + dtype_name + " needs " + need +
                                       " bytes of data, the file has " + std::to_string(data_bytes));
  }
  std::string name;
  if (h.contains("name") && h["name"].is_string()) name = h["name"].get<std::string>();
  Tensor t(dtype, shape, name);
  if (h.contains("seed") && !h["seed"].is_null()) {
    if (!h["seed"].is_number_unsigned() && !h["seed"].is_number_integer()) {
      throw InputError(path, "seed", "must be an integer or null");
    }
    t.set_seed(h["seed"].get<std::uint64_t>());
  }
  in.read(reinterpret_cast<char*>(t.data()), static_cast<std::streamsize>(t.byte_size()));
  if (in.gcount() != static_cast<std::streamsize>(t.byte_size())) {
    throw InputError(path, "data", "expected " + std::to_string(t.byte_size()) + " bytes of " +
                                       dtype_name + " data for shape " + shape_to_string(shape) +
                                       ", found " + std::to_string(in.gcount()));
  }
  if (in.peek() != std::char_traits<char>::eof()) {
    throw InputError(path, "data", "trailing bytes after " + std::to_string(t.byte_size()) +
                                       " bytes of data for shape " + shape_to_string(shape));
  }
  return t;
}

}  // namespace vxsynth::ops
