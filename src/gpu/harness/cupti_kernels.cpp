#include "harness/cupti_kernels.h"

#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "common/error.h"

namespace vxsynth::gpu {
namespace {

using RegisterFn = CUptiResult (*)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
using KindFn = CUptiResult (*)(CUpti_ActivityKind);
using FlushFn = CUptiResult (*)(uint32_t);
using NextFn = CUptiResult (*)(uint8_t*, size_t, CUpti_Activity**);
using ResultStringFn = CUptiResult (*)(CUptiResult, const char**);

struct Api {
  RegisterFn register_callbacks = nullptr;
  KindFn enable = nullptr;
  KindFn disable = nullptr;
  FlushFn flush_all = nullptr;
  NextFn next_record = nullptr;
  ResultStringFn result_string = nullptr;
};

Api g_api;
std::mutex g_mutex;
std::vector<ObservedKernel>* g_sink = nullptr;

constexpr std::size_t kBufferBytes = 8u << 20;

// CUPTI reports mangled names; ncu prints demangled ones, so reports use those.
std::string demangle(const char* name) {
  if (!name) return "";
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string out(d);
  std::free(d);
  return out;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  while (g_api.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) {
      continue;
    }
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    if (g_sink) {
      ObservedKernel o;
      o.name = demangle(k->name);
      o.stream_id = k->streamId;
      o.duration_ns = k->end > k->start ? k->end - k->start : 0;
      o.grid[0] = static_cast<std::uint32_t>(k->gridX);
      o.grid[1] = static_cast<std::uint32_t>(k->gridY);
      o.grid[2] = static_cast<std::uint32_t>(k->gridZ);
      o.block[0] = static_cast<std::uint32_t>(k->blockX);
      o.block[1] = static_cast<std::uint32_t>(k->blockY);
      o.block[2] = static_cast<std::uint32_t>(k->blockZ);
      g_sink->push_back(std::move(o));
    }
  }
  std::free(buffer);
}

std::string result_text(CUptiResult rc) {
  const char* s = nullptr;
  if (g_api.result_string && g_api.result_string(rc, &s) == CUPTI_SUCCESS && s) return s;
  return "CUPTI error " + std::to_string(static_cast<int>(rc));
}

}  // namespace

KernelRecorder::KernelRecorder() {
  // The toolkit's copy first (same CUDA version as the runtime we link), then the loader path.
  const char* candidates[] = {"/usr/local/cuda/lib64/libcupti.so.13",
                              "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13", "libcupti.so.13",
                              "libcupti.so"};
  std::string tried;
  for (const char* path : candidates) {
    library_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library_) {
      note_ = std::string("CUPTI activity records (") + path + ")";
      break;
    }
    tried += std::string(tried.empty() ? "" : ", ") + path;
  }
  if (!library_) {
    note_ = "CUPTI not found (tried " + tried + "): vendor kernel names come only from ncu profiles";
    return;
  }
  g_api.register_callbacks = reinterpret_cast<RegisterFn>(dlsym(library_, "cuptiActivityRegisterCallbacks"));
  g_api.enable = reinterpret_cast<KindFn>(dlsym(library_, "cuptiActivityEnable"));
  g_api.disable = reinterpret_cast<KindFn>(dlsym(library_, "cuptiActivityDisable"));
  g_api.flush_all = reinterpret_cast<FlushFn>(dlsym(library_, "cuptiActivityFlushAll"));
  g_api.next_record = reinterpret_cast<NextFn>(dlsym(library_, "cuptiActivityGetNextRecord"));
  g_api.result_string = reinterpret_cast<ResultStringFn>(dlsym(library_, "cuptiGetResultString"));
  if (!g_api.register_callbacks || !g_api.enable || !g_api.disable || !g_api.flush_all || !g_api.next_record) {
    note_ = "CUPTI library lacks the activity API";
    return;
  }
  if (const CUptiResult rc = g_api.register_callbacks(buffer_requested, buffer_completed); rc != CUPTI_SUCCESS) {
    note_ = "cuptiActivityRegisterCallbacks failed: " + result_text(rc);
    return;
  }
  available_ = true;
}

KernelRecorder::~KernelRecorder() {
  if (recording_) {
    try {
      stop();
    } catch (...) {
    }
  }
  // CUPTI stays loaded: it may still hold callbacks into this process.
}

void KernelRecorder::start() {
  if (!available_) return;
  if (const CUptiResult rc = g_api.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); rc != CUPTI_SUCCESS) {
    available_ = false;
    note_ = "cuptiActivityEnable failed: " + result_text(rc);
    return;
  }
  recording_ = true;
}

std::vector<ObservedKernel> KernelRecorder::stop() {
  std::vector<ObservedKernel> out;
  if (!available_ || !recording_) return out;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_sink = &out;
  }
  g_api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  g_api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  g_api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_sink = nullptr;
  }
  recording_ = false;
  return out;
}

}  // namespace vxsynth::gpu
