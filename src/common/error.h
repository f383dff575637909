// Error kinds shared by every part. The CLI maps them to exit codes:
// InputError -> 2 (bad usage or bad input), WorkError -> 1 (the work itself failed).
#pragma once

#include <stdexcept>
#include <string>

namespace vxsynth {

// Bad input: says which file, which field and what was expected.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string field, const std::string& what);
  explicit InputError(const std::string& what);

  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  std::string field_;
};

// The work ran but failed (a check did not pass, a kernel faulted, a tool failed).
class WorkError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace vxsynth
