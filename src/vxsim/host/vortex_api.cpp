// The Vortex 2.x legacy C API (vortex.h) over host::Device. Every entry point validates its
// handles against the live devices and buffers, turns exceptions into a message on stderr
// and a non-zero return, and never lets a C++ exception cross into the C caller.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "vxsim/host/device.h"
#include "vortex.h"
#include "vortex_vxsim.h"

namespace host = vxsynth::vxsim::host;

namespace {

constexpr int kFailure = -1;

// Live handles, so a stale or foreign handle is an error message rather than a crash.
std::mutex g_handles_mutex;
std::set<host::Device*> g_devices;
std::set<host::Buffer*> g_buffers;

host::Device* device_of(vx_device_h handle, const char* call) {
  std::lock_guard lock(g_handles_mutex);
  auto* device = static_cast<host::Device*>(handle);
  if (device == nullptr || g_devices.count(device) == 0) {
    throw vxsynth::InputError(call, "hdevice", "expected a device from vx_dev_open (NULL, closed or unknown handle)");
  }
  return device;
}

host::Buffer* buffer_of(vx_buffer_h handle, const char* call, const char* field = "hbuffer") {
  std::lock_guard lock(g_handles_mutex);
  auto* buffer = static_cast<host::Buffer*>(handle);
  if (buffer == nullptr || g_buffers.count(buffer) == 0) {
    throw vxsynth::InputError(call, field, "expected a live buffer (NULL, freed or unknown handle)");
  }
  return buffer;
}

void register_buffer(host::Buffer* buffer) {
  std::lock_guard lock(g_handles_mutex);
  g_buffers.insert(buffer);
}

void unregister_buffer(host::Buffer* buffer) {
  std::lock_guard lock(g_handles_mutex);
  g_buffers.erase(buffer);
}

template <typename T>
void require_out(T* pointer, const char* call, const char* field) {
  if (pointer == nullptr) throw vxsynth::InputError(call, field, "expected an output pointer, got NULL");
}

// Runs body; exceptions become "call: message" on stderr and kFailure.
template <typename Body>
int guarded(const char* call, Body&& body) {
  try {
    return body();
  } catch (const std::exception& error) {
    const std::string text = error.what();
    if (text.rfind(call, 0) == 0) {
      std::fprintf(stderr, "%s\n", text.c_str());
    } else {
      std::fprintf(stderr, "%s: %s\n", call, text.c_str());
    }
    return kFailure;
  } catch (...) {
    std::fprintf(stderr, "%s: unknown error\n", call);
    return kFailure;
  }
}

std::vector<uint8_t> read_file(const char* path, const char* call) {
  if (path == nullptr) throw vxsynth::InputError(call, "filename", "expected a file name, got NULL");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw vxsynth::InputError(path, "", "cannot open the file");
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

host::Buffer* upload_kernel(host::Device* device, const void* content, uint64_t size, const std::string& name) {
  if (content == nullptr || size == 0) {
    throw vxsynth::InputError(name, "content", "expected a non-empty kernel image");
  }
  host::Buffer* buffer =
      device->upload_kernel(std::span<const uint8_t>(static_cast<const uint8_t*>(content), size), name);
  register_buffer(buffer);
  return buffer;
}

host::Buffer* upload_bytes(host::Device* device, const void* content, uint64_t size, const char* call) {
  if (content == nullptr && size != 0) throw vxsynth::InputError(call, "content", "expected data, got NULL");
  host::Buffer* buffer = device->allocate(size, VX_MEM_READ);
  try {
    device->copy_to(buffer, content, 0, size);
  } catch (...) {
    device->free(buffer);
    throw;
  }
  register_buffer(buffer);
  return buffer;
}

}  // namespace

extern "C" {

int vx_dev_open(vx_device_h* hdevice) {
  return guarded("vx_dev_open", [&] {
    require_out(hdevice, "vx_dev_open", "hdevice");
    auto device = std::make_unique<host::Device>(host::current_device_config(), host::timing_from_environment());
    std::lock_guard lock(g_handles_mutex);
    g_devices.insert(device.get());
    *hdevice = device.release();
    return 0;
  });
}

int vx_dev_close(vx_device_h hdevice) {
  return guarded("vx_dev_close", [&] {
    host::Device* device = device_of(hdevice, "vx_dev_close");
    device->wait(VX_MAX_TIMEOUT);
    device->dump_perf(stdout);
    std::fflush(stdout);
    if (const char* file = std::getenv("VXSIM_RUN_JSON"); file != nullptr && *file != '\0') {
      vxsynth::write_json_file(file, device->run_json());
    }
    {
      std::lock_guard lock(g_handles_mutex);
      g_devices.erase(device);
      for (auto it = g_buffers.begin(); it != g_buffers.end();) {
        it = (*it)->device == device ? g_buffers.erase(it) : std::next(it);
      }
    }
    delete device;
    return 0;
  });
}

int vx_dev_caps(vx_device_h hdevice, uint32_t caps_id, uint64_t* value) {
  return guarded("vx_dev_caps", [&] {
    host::Device* device = device_of(hdevice, "vx_dev_caps");
    require_out(value, "vx_dev_caps", "value");
    const auto& config = device->config();
    const uint64_t global_mem = uint64_t{1} << 32;
    const uint64_t mem_banks = 2;  // PLATFORM_MEMORY_NUM_BANKS
    switch (caps_id) {
      case VX_CAPS_VERSION: *value = 2; break;
      case VX_CAPS_NUM_THREADS: *value = config.threads; break;
      case VX_CAPS_NUM_WARPS: *value = config.warps; break;
      case VX_CAPS_NUM_CORES: *value = config.cores; break;
      case VX_CAPS_CACHE_LINE_SIZE: *value = vxsynth::vxsim::kCacheLineSize; break;
      case VX_CAPS_GLOBAL_MEM_SIZE: *value = global_mem; break;
      case VX_CAPS_LOCAL_MEM_SIZE: *value = config.local_mem_bytes; break;
      case VX_CAPS_ISA_FLAGS:
        // RV32 (log2(32) - 4 = 1 in bits 30-31), IMAF, local memory, Zicond and the v2 tensor unit.
        *value = VX_ISA_STD_I | VX_ISA_STD_M | VX_ISA_STD_A | VX_ISA_STD_F | (uint64_t{1} << 30) |
                 VX_ISA_EXT_LMEM | VX_ISA_EXT_ZICOND | VX_ISA_EXT_TCU;
        break;
      case VX_CAPS_NUM_MEM_BANKS: *value = mem_banks; break;
      case VX_CAPS_MEM_BANK_SIZE: *value = global_mem / mem_banks; break;
      default:
        throw vxsynth::InputError("vx_dev_caps", "caps_id",
                                  "unknown capability " + std::to_string(caps_id) + " (expected 0x0..0x9)");
    }
    return 0;
  });
}

int vx_mem_alloc(vx_device_h hdevice, uint64_t size, int flags, vx_buffer_h* hbuffer) {
  return guarded("vx_mem_alloc", [&] {
    host::Device* device = device_of(hdevice, "vx_mem_alloc");
    require_out(hbuffer, "vx_mem_alloc", "hbuffer");
    host::Buffer* buffer = device->allocate(size, flags);
    register_buffer(buffer);
    *hbuffer = buffer;
    return 0;
  });
}

int vx_mem_reserve(vx_device_h hdevice, uint64_t address, uint64_t size, int flags, vx_buffer_h* hbuffer) {
  return guarded("vx_mem_reserve", [&] {
    host::Device* device = device_of(hdevice, "vx_mem_reserve");
    require_out(hbuffer, "vx_mem_reserve", "hbuffer");
    host::Buffer* buffer = device->reserve(address, size, flags);
    register_buffer(buffer);
    *hbuffer = buffer;
    return 0;
  });
}

int vx_mem_free(vx_buffer_h hbuffer) {
  // Vortex accepts NULL here (nothing to free).
  if (hbuffer == nullptr) return 0;
  return guarded("vx_mem_free", [&] {
    host::Buffer* buffer = buffer_of(hbuffer, "vx_mem_free");
    buffer->device->free(buffer);
    unregister_buffer(buffer);
    return 0;
  });
}

int vx_mem_access(vx_buffer_h hbuffer, uint64_t offset, uint64_t size, int flags) {
  return guarded("vx_mem_access", [&] {
    host::Buffer* buffer = buffer_of(hbuffer, "vx_mem_access");
    buffer->device->set_access(buffer, offset, size, flags);
    return 0;
  });
}

int vx_mem_address(vx_buffer_h hbuffer, uint64_t* address) {
  return guarded("vx_mem_address", [&] {
    host::Buffer* buffer = buffer_of(hbuffer, "vx_mem_address");
    require_out(address, "vx_mem_address", "address");
    *address = buffer->address;
    return 0;
  });
}

int vx_mem_info(vx_device_h hdevice, uint64_t* mem_free, uint64_t* mem_used) {
  return guarded("vx_mem_info", [&] {
    host::Device* device = device_of(hdevice, "vx_mem_info");
    if (mem_free != nullptr) *mem_free = device->heap_free();
    if (mem_used != nullptr) *mem_used = device->heap_used();
    return 0;
  });
}

int vx_copy_to_dev(vx_buffer_h hbuffer, const void* host_ptr, uint64_t dst_offset, uint64_t size) {
  return guarded("vx_copy_to_dev", [&] {
    host::Buffer* buffer = buffer_of(hbuffer, "vx_copy_to_dev");
    buffer->device->copy_to(buffer, host_ptr, dst_offset, size);
    return 0;
  });
}

int vx_copy_from_dev(void* host_ptr, vx_buffer_h hbuffer, uint64_t src_offset, uint64_t size) {
  return guarded("vx_copy_from_dev", [&] {
    host::Buffer* buffer = buffer_of(hbuffer, "vx_copy_from_dev");
    buffer->device->copy_from(host_ptr, buffer, src_offset, size);
    return 0;
  });
}

int vx_start(vx_device_h hdevice, vx_buffer_h hkernel, vx_buffer_h harguments) {
  return guarded("vx_start", [&] {
    host::Device* device = device_of(hdevice, "vx_start");
    host::Buffer* kernel = buffer_of(hkernel, "vx_start", "hkernel");
    host::Buffer* arguments = harguments != nullptr ? buffer_of(harguments, "vx_start", "harguments") : nullptr;
    if (kernel->device != device || (arguments != nullptr && arguments->device != device)) {
      throw vxsynth::InputError("vx_start", "hkernel/harguments", "the buffers belong to another device");
    }
    device->start(kernel, arguments);
    return 0;
  });
}

int vx_ready_wait(vx_device_h hdevice, uint64_t timeout) {
  return guarded("vx_ready_wait", [&] {
    host::Device* device = device_of(hdevice, "vx_ready_wait");
    if (!device->wait(timeout)) {
      std::fprintf(stderr, "vx_ready_wait: the kernel is still running after %" PRIu64 " ms\n", timeout);
      return kFailure;
    }
    const auto& outcome = device->last_outcome();
    if (outcome.faulted) {
      std::fprintf(stderr, "vx_ready_wait: the kernel failed:\n%s\n", outcome.error.c_str());
      return kFailure;
    }
    if (outcome.exit_code != 0) {
      std::fprintf(stderr, "vx_ready_wait: the kernel exited with code %d\n", outcome.exit_code);
      return outcome.exit_code;
    }
    return 0;
  });
}

int vx_dcr_read(vx_device_h hdevice, uint32_t addr, uint32_t* value) {
  return guarded("vx_dcr_read", [&] {
    host::Device* device = device_of(hdevice, "vx_dcr_read");
    require_out(value, "vx_dcr_read", "value");
    *value = device->simulator().read_dcr(addr);
    return 0;
  });
}

int vx_dcr_write(vx_device_h hdevice, uint32_t addr, uint32_t value) {
  return guarded("vx_dcr_write", [&] {
    host::Device* device = device_of(hdevice, "vx_dcr_write");
    if (device->busy()) throw vxsynth::InputError("vx_dcr_write", "", "the device is running a kernel");
    device->simulator().write_dcr(addr, value);
    return 0;
  });
}

int vx_mpm_query(vx_device_h hdevice, uint32_t addr, uint32_t core_id, uint64_t* value) {
  return guarded("vx_mpm_query", [&] {
    host::Device* device = device_of(hdevice, "vx_mpm_query");
    require_out(value, "vx_mpm_query", "value");
    if (core_id >= device->config().cores) {
      throw vxsynth::InputError("vx_mpm_query", "core_id",
                                "expected a core below " + std::to_string(device->config().cores) + ", got " +
                                    std::to_string(core_id));
    }
    if (device->timed() && (addr == VX_CSR_MINSTRET || addr == VX_CSR_MCYCLE)) {
      // With a timing model: its totals (SimX's instruction count, the modelled cycles).
      const auto& counters = device->core_counters()[core_id];
    switch (addr) {
      case VX_CSR_MINSTRET:
        // With a timing model, SimX's count (a WMMA as its micro-ops).
        *value = device->timed() && core_id < device->timing_total().cores.size()
                     ? device->timing_total().cores[core_id].instrs
                     : counters.thread_instructions;
        break;
      case VX_CSR_MCYCLE:
        if (!device->timed()) {
          throw vxsynth::InputError("vx_mpm_query", "addr",
                                    "VX_CSR_MCYCLE: cycles are not modelled by the functional simulator (set "
                                    "VXSIM_TIMING=vortex2)");
        }
        *value = device->timing_total().cycles;
        break;
      default:
        throw vxsynth::InputError("vx_mpm_query", "addr",
                                  "unsupported counter CSR " + std::to_string(addr) + " (supported: VX_CSR_MINSTRET)");
      }
      return 0;
    }
    // As Vortex's runtime: the counter block the kernel's exit path stored for this core
    // (vortex-rt's _exit), slot addr - VX_CSR_MPM_BASE.
    if (addr < VX_CSR_MPM_BASE || addr > VX_CSR_MPM_BASE + 31) {
      throw vxsynth::InputError("vx_mpm_query", "addr",
                                "expected a counter CSR 0xB00..0xB1F (VX_CSR_MPM_BASE + slot), got " +
                                    std::to_string(addr));
    }
    *value = device->stored_counter(core_id, addr - VX_CSR_MPM_BASE);
    return 0;
  });
}

int vx_upload_kernel_bytes(vx_device_h hdevice, const void* content, uint64_t size, vx_buffer_h* hbuffer) {
  return guarded("vx_upload_kernel_bytes", [&] {
    host::Device* device = device_of(hdevice, "vx_upload_kernel_bytes");
    require_out(hbuffer, "vx_upload_kernel_bytes", "hbuffer");
    *hbuffer = upload_kernel(device, content, size, "kernel image");
    return 0;
  });
}

int vx_upload_kernel_file(vx_device_h hdevice, const char* filename, vx_buffer_h* hbuffer) {
  return guarded("vx_upload_kernel_file", [&] {
    host::Device* device = device_of(hdevice, "vx_upload_kernel_file");
    require_out(hbuffer, "vx_upload_kernel_file", "hbuffer");
    const std::vector<uint8_t> bytes = read_file(filename, "vx_upload_kernel_file");
    host::Buffer* buffer = upload_kernel(device, bytes.data(), bytes.size(), filename);
    // A .vxbin has no line table; the ELF that `vxsynth sim cc` leaves beside it does, and
    // names source lines in fault reports.
    const std::string path = filename;
    if (path.size() > 6 && path.compare(path.size() - 6, 6, ".vxbin") == 0) {
      const std::string elf = path.substr(0, path.size() - 6) + ".elf";
      if (std::ifstream(elf).good()) {
        try {
          device->simulator().load_line_info(elf);
        } catch (const std::exception&) {
          // Line information is a convenience; a stale or foreign ELF is ignored.
        }
      }
    }
    *hbuffer = buffer;
    return 0;
  });
}

int vx_upload_bytes(vx_device_h hdevice, const void* content, uint64_t size, vx_buffer_h* hbuffer) {
  return guarded("vx_upload_bytes", [&] {
    host::Device* device = device_of(hdevice, "vx_upload_bytes");
    require_out(hbuffer, "vx_upload_bytes", "hbuffer");
    *hbuffer = upload_bytes(device, content, size, "vx_upload_bytes");
    return 0;
  });
}

int vx_upload_file(vx_device_h hdevice, const char* filename, vx_buffer_h* hbuffer) {
  return guarded("vx_upload_file", [&] {
    host::Device* device = device_of(hdevice, "vx_upload_file");
    require_out(hbuffer, "vx_upload_file", "hbuffer");
    const std::vector<uint8_t> bytes = read_file(filename, "vx_upload_file");
    *hbuffer = upload_bytes(device, bytes.data(), bytes.size(), "vx_upload_file");
    return 0;
  });
}

int vx_check_occupancy(vx_device_h hdevice, uint32_t group_size, uint32_t* max_localmem) {
  return guarded("vx_check_occupancy", [&] {
    host::Device* device = device_of(hdevice, "vx_check_occupancy");
    require_out(max_localmem, "vx_check_occupancy", "max_localmem");
    const auto& config = device->config();
    if (group_size == 0 || group_size > config.warps * config.threads) {
      throw vxsynth::InputError("vx_check_occupancy", "group_size",
                                "expected 1.." + std::to_string(config.warps * config.threads) +
                                    " threads (warps x threads of a core), got " + std::to_string(group_size));
    }
    const uint32_t warps_per_group = (group_size + config.threads - 1) / config.threads;
    const uint32_t groups_per_core = config.warps / warps_per_group;
    *max_localmem = config.local_mem_bytes / groups_per_core;
    return 0;
  });
}

int vx_dump_perf(vx_device_h hdevice, FILE* stream) {
  return guarded("vx_dump_perf", [&] {
    host::Device* device = device_of(hdevice, "vx_dump_perf");
    device->dump_perf(stream != nullptr ? stream : stdout);
    return 0;
  });
}

// ---- vortex_vxsim.h ----

int vxsim_default_device_config(vxsim_device_config_t* config) {
  return guarded("vxsim_default_device_config", [&] {
    require_out(config, "vxsim_default_device_config", "config");
    const auto c = host::current_device_config();
    *config = {c.cores, c.warps, c.threads, c.local_mem_bytes, c.max_instructions};
    return 0;
  });
}

int vxsim_set_device_config(const vxsim_device_config_t* config) {
  return guarded("vxsim_set_device_config", [&] {
    if (config == nullptr) {
      host::set_process_device_config(std::nullopt);
      return 0;
    }
    vxsynth::vxsim::Config c;
    c.cores = config->cores;
    c.warps = config->warps;
    c.threads = config->threads;
    c.local_mem_bytes = config->local_mem_size;
    c.max_instructions = config->max_instructions;
    host::set_process_device_config(c);
    return 0;
  });
}

int vxsim_set_console_mode(vx_device_h hdevice, int mode) {
  return guarded("vxsim_set_console_mode", [&] {
    host::Device* device = device_of(hdevice, "vxsim_set_console_mode");
    if (mode < 0 || mode > 2) {
      throw vxsynth::InputError("vxsim_set_console_mode", "mode",
                                "expected 0 (#slot: text), 1 (text) or 2 (silent), got " + std::to_string(mode));
    }
    device->set_console_mode(static_cast<host::ConsoleMode>(mode));
    return 0;
  });
}

uint64_t vxsim_console_text(vx_device_h hdevice, char* buffer, uint64_t size) {
  uint64_t length = 0;
  guarded("vxsim_console_text", [&] {
    host::Device* device = device_of(hdevice, "vxsim_console_text");
    if (device->busy()) throw vxsynth::InputError("vxsim_console_text", "", "the device is running a kernel");
    const std::string& text = device->console_text();
    length = text.size();
    if (buffer != nullptr && size > 0) {
      const uint64_t n = std::min<uint64_t>(length, size - 1);
      text.copy(buffer, n);
      buffer[n] = '\0';
    }
    return 0;
  });
  return length;
}

int vxsim_instruction_counts(vx_device_h hdevice, uint64_t* thread_instrs, uint64_t* warp_instrs) {
  return guarded("vxsim_instruction_counts", [&] {
    host::Device* device = device_of(hdevice, "vxsim_instruction_counts");
    if (thread_instrs != nullptr) *thread_instrs = device->total_counters().thread_instructions;
    if (warp_instrs != nullptr) *warp_instrs = device->total_counters().warp_instructions;
    return 0;
  });
}

}  // extern "C"
