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

KernelSignature pick(std::vector<KernelSignature> kernels, const std::string& path, const std::string& selector) {
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
  if (hits.size() == 1) return std::move(hits.front());
  if (hits.empty()) throw InputError(path, selector.empty() ? "" : "#" + selector, "no kernel matches");
  std::string list;
  for (const auto& k : hits) {
    list += '\n';
    list += describe(k);
  }
  throw InputError(path, selector.empty() ? "" : "#" + selector,
                   std::to_string(hits.size()) + " kernels match; pick one with FILE#id=N:" + list);
}

}  // namespace

KernelSignature load_kernel_signature(const std::string& spec, const DeriveOptions& options) {
  std::string path = spec, selector;
  const auto hash = spec.rfind('#');
  if (hash != std::string::npos) {
    path = spec.substr(0, hash);
    selector = spec.substr(hash + 1);
  }
  if (looks_like_json(path)) return pick(read_signatures(path), path, selector);
  const NcuTable table = NcuTable::read_file(path);
  // Derive only the selected rows: an unrelated launch with missing counters does not matter.
  std::vector<KernelSignature> selected;
  if (selector.rfind("id=", 0) == 0) {
    for (const NcuRow& row : table.rows())
      if (*table.text(row, "ID") == selector.substr(3)) selected.push_back(derive_signature(table, row, options));
    if (selected.empty()) {
      std::string list;
      for (const NcuRow& row : table.rows()) list += "\n  ID " + *table.text(row, "ID") + ": " + *table.text(row, "Kernel Name");
      throw InputError(path, "#" + selector, "no launch has this ID; launches:" + list);
    }
    return std::move(selected.front());
  }
  return pick(derive_signatures(table, options, selector), path, selector);
}

}  // namespace vxsynth::signature
