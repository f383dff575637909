// libFuzzer target: the ncu CSV reader and the metric derivation must turn any input into
// signatures or an InputError, never a crash, hang or other exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.h"
#include "signature/derive.h"
#include "signature/kernel_name.h"
#include "signature/ncu_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace vxsynth::signature;
  try {
    const NcuTable table = NcuTable::parse(text, "fuzz.csv");
    DeriveOptions options;
    options.partial = true;
    for (const auto& k : derive_signatures(table, options)) (void)k.to_json().dump();
  } catch (const vxsynth::InputError&) {
    // bad input is expected to be reported this way
  }
  (void)read_kernel_name(text.substr(0, 512));
  (void)parse_ncu_number(text.substr(0, 64));
  return 0;
}
