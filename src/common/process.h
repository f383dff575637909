// Running a program with an argument vector (no shell), output captured.
#pragma once

#include <string>
#include <vector>

namespace vxsynth {

// Runs argv (no shell, found on PATH), returns the exit status (128 + signal when killed);
// stdout and stderr go to *output. WorkError when the program cannot be started.
int run_program(const std::vector<std::string>& argv, std::string* output);

}  // namespace vxsynth
