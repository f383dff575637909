#include "signature/kernel_source.h"

#include <fstream>
#include <regex>

#include "common/error.h"

namespace vxsynth::signature {

namespace {

bool looks_like_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file");
  char ch = 0;
  while (in.get(ch))
    if (!std::isspace(static_cast<unsigned char>(ch))) return ch == '{';
  return false;
}

std::string describe(const KernelSignature& k) {
  std::string s = "  ID ";
  s += k.ncu_id;
  s += ": ";
  s += k.name;
  return s;
}

std::vector<KernelSignature> select(std::vector<KernelSignature> kernels, const std::string& path,
                                    const std::string& selector) {
  std::vector<KernelSignature> hits;
  if (selector.empty()) {
    hits = std::move(kernels);
  } else if (selector.rfind("id=", 0) == 0) {
    const std::string id = selector.substr(3);
    for (auto& k : kernels)
      if (k.ncu_id == id) hits.push_back(std::move(k));
  } else {
    std::regex re;
    try {
      re = std::regex(selector);
    } catch (const std::regex_error& e) {
      throw InputError(path, "#" + selector, std::string("not a valid regular expression (") + e.what() + ")");
    }
    for (auto& k : kernels)
      if (std::regex_search(k.name, re)) hits.push_back(std::move(k));
  }
  if (hits.empty()) throw InputError(path, selector.empty() ? "" : "#" + selector, "no kernel matches");
  return hits;
}

KernelSignature pick(std::vector<KernelSignature> kernels, const std::string& path, const std::string& selector) {
  std::vector<KernelSignature> hits = select(std::move(kernels), path, selector);
  if (hits.size() == 1) return std::move(hits.front());
  std::string list;
  for (const auto& k : hits) {
    list += '\n';
    list += describe(k);
  }
  throw InputError(path, selector.empty() ? "" : "#" + selector,
                   std::to_string(hits.size()) + " kernels match; pick one with FILE#id=N:" + list);
}

std::pair<std::string, std::string> split_spec(const std::string& spec) {
  const auto hash = spec.rfind('#');
  if (hash == std::string::npos) return {spec, ""};
  return {spec.substr(0, hash), spec.substr(hash + 1)};
}

}  // namespace

KernelSignature load_kernel_signature(const std::string& spec, const DeriveOptions& options, Scope scope) {
  const auto [path, selector] = split_spec(spec);
  if (scope == Scope::kOperator) {
    if (looks_like_json(path)) return pick(read_signatures_at(path, scope), path, selector);
    return load_kernel_signatures(spec, options, scope).front();
  }
  if (looks_like_json(path)) return pick(read_signatures(path), path, selector);
  // Derive only the selected rows: an unrelated launch with missing counters does not matter.
  if (selector.rfind("id=", 0) == 0) return load_kernel_signatures(spec, options).front();
  const NcuTable table = NcuTable::read_file(path);
  return pick(derive_signatures(table, options, selector), path, selector);
}

std::vector<KernelSignature> load_kernel_signatures(const std::string& spec, const DeriveOptions& options, Scope scope) {
  const auto [path, selector] = split_spec(spec);
  if (looks_like_json(path)) return select(read_signatures_at(path, scope), path, selector);
  if (scope == Scope::kOperator) {
    // The launches the spec selects, as one operator.
    return {aggregate_operator(load_kernel_signatures(spec, options, Scope::kKernel), "operator of " + spec, path).signature};
  }
  const NcuTable table = NcuTable::read_file(path);
  if (selector.rfind("id=", 0) == 0) {
    std::vector<KernelSignature> selected;
    for (const NcuRow& row : table.rows())
      if (*table.text(row, "ID") == selector.substr(3)) selected.push_back(derive_signature(table, row, options));
    if (selected.empty()) {
      std::string list;
      for (const NcuRow& row : table.rows()) list += "\n  ID " + *table.text(row, "ID") + ": " + *table.text(row, "Kernel Name");
      throw InputError(path, "#" + selector, "no launch has this ID; launches:" + list);
    }
    return selected;
  }
  return select(derive_signatures(table, options, selector), path, selector);
}

}  // namespace vxsynth::signature
