// Names of the kernels a stretch of host code launched, from CUPTI's activity records. CUPTI
// is loaded at run time (dlopen), so the harness still runs where it is missing, and it is
// never used under ncu (CUPTI allows one subscriber; ncu names the kernels itself).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vxsynth::gpu {

struct ObservedKernel {
  std::string name;
  std::uint32_t stream_id = 0;
  std::uint64_t duration_ns = 0;
  std::uint32_t grid[3] = {0, 0, 0};
  std::uint32_t block[3] = {0, 0, 0};
};

class KernelRecorder {
 public:
  KernelRecorder();  // loads CUPTI; available() says whether that worked
  ~KernelRecorder();
  KernelRecorder(const KernelRecorder&) = delete;
  KernelRecorder& operator=(const KernelRecorder&) = delete;

  bool available() const { return available_; }
  const std::string& note() const { return note_; }  // where CUPTI came from, or why not

  void start();                         // begin recording kernel launches
  std::vector<ObservedKernel> stop();   // flush and return what ran since start()

 private:
  bool available_ = false;
  bool recording_ = false;
  std::string note_;
  void* library_ = nullptr;
};

}  // namespace vxsynth::gpu
