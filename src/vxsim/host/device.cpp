#include "vxsim/host/device.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

#include "common/error.h"
#include "vxsim/timing/regions.h"

#include <VX_types.h>

namespace vxsynth::vxsim::host {

namespace {

constexpr int kFlagRead = 0x1;
constexpr int kFlagWrite = 0x2;
constexpr int kFlagPin = 0x4;

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

Access access_of(int flags) {
  switch (flags & (kFlagRead | kFlagWrite)) {
    case kFlagRead: return Access::kRead;
    case kFlagWrite: return Access::kWrite;
    default: return Access::kReadWrite;
  }
}

void check_flags(const char* call, int flags) {
  if ((flags & ~(kFlagRead | kFlagWrite | kFlagPin)) != 0 || (flags & (kFlagRead | kFlagWrite)) == 0) {
    throw InputError(call, "flags",
                     "expected VX_MEM_READ, VX_MEM_WRITE or VX_MEM_READ_WRITE (optionally | VX_MEM_PIN_MEMORY), got " +
                         std::to_string(flags));
  }
}

// Parses an unsigned decimal environment variable; nullopt when unset or empty.
std::optional<uint64_t> env_number(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || text[0] == '-' || text[0] == '+') {
    throw InputError("environment", name, std::string("expected an unsigned decimal integer, got '") + text + "'");
  }
  return value;
}

std::mutex g_config_mutex;
std::optional<Config> g_process_config;

}  // namespace

Config device_config_from_environment() {
  Config config;
  struct Field {
    const char* variable;
    uint32_t* target;
  };
  const Field fields[] = {{"VXSIM_CORES", &config.cores},
                          {"VXSIM_WARPS", &config.warps},
                          {"VXSIM_THREADS", &config.threads},
                          {"VXSIM_LOCAL_MEM", &config.local_mem_bytes}};
  for (const Field& field : fields) {
    if (auto value = env_number(field.variable)) {
      if (*value > std::numeric_limits<uint32_t>::max()) {
        throw InputError("environment", field.variable, "value too large: " + std::to_string(*value));
      }
      *field.target = static_cast<uint32_t>(*value);
    }
  }
  if (auto value = env_number("VXSIM_MAX_INSTRS")) config.max_instructions = *value;
  config.validate("environment (VXSIM_CORES/VXSIM_WARPS/VXSIM_THREADS/VXSIM_LOCAL_MEM)");
  return config;
}

void set_process_device_config(const std::optional<Config>& config) {
  if (config) config->validate("vxsim_set_device_config");
  std::lock_guard lock(g_config_mutex);
  g_process_config = config;
}

Config current_device_config() {
  {
    std::lock_guard lock(g_config_mutex);
    if (g_process_config) return *g_process_config;
  }
  return device_config_from_environment();
}

std::optional<timing::TimingParams> timing_from_environment() {
  const char* model = std::getenv("VXSIM_TIMING");
  const std::string name = model == nullptr ? "" : model;
  if (name.empty() || name == "none") return std::nullopt;
  if (name != "vortex2") {
    throw InputError("environment", "VXSIM_TIMING", "expected none or vortex2, got '" + name + "'");
  }
  timing::TimingParams params;
  if (const char* file = std::getenv("VXSIM_TIMING_CONFIG"); file != nullptr && *file != '\0') params.load_file(file);
  if (const char* list = std::getenv("VXSIM_TIMING_PARAMS"); list != nullptr) {
    std::string_view rest = list;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      if (!item.empty()) params.set_assignment(item, "VXSIM_TIMING_PARAMS");
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return params;
}

Device::Device(const Config& config, const std::optional<timing::TimingParams>& timing)
    : sim_(config), per_core_(config.cores) {
  if (timing) {
    timing::TimingParams check = *timing;
    check.resolve(config);
    timing_ = std::make_unique<timing::Vortex2Model>(*timing);
    sim_.set_instruction_consumer(timing_.get());
  }
  sim_.set_console_callback([this](const ConsoleLine& line) {
    console_text_ += line.text;
    console_text_ += '\n';
    switch (console_mode_) {
      case ConsoleMode::kSlotPrefix:
        std::printf("%s: %s\n", console_label(line, sim_.config().cores).c_str(), line.text.c_str());
        break;
      case ConsoleMode::kPlain: std::printf("%s\n", line.text.c_str()); break;
      case ConsoleMode::kSilent: break;
    }
  });
}

Device::~Device() {
  if (worker_.joinable()) worker_.join();
}

bool Device::owns(const Buffer* buffer) const {
  if (buffer == nullptr) return false;
  auto it = buffers_.find(buffer->address);
  return it != buffers_.end() && it->second.get() == buffer;
}

void Device::require_idle(const char* what) const {
  if (busy()) {
    throw InputError(what, "", "the device is running a kernel: call vx_ready_wait before touching device memory");
  }
}

void Device::check_range(const Buffer* buffer, uint64_t offset, uint64_t size, const char* what) const {
  if (offset > buffer->size || size > buffer->size - offset) {
    throw InputError(what, "offset/size",
                     "range [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " + std::to_string(size) +
                         ") is outside the buffer of " + std::to_string(buffer->size) + " bytes at " +
                         hex(buffer->address));
  }
}

Buffer* Device::insert(uint32_t address, uint64_t size, int flags) {
  auto buffer = std::make_unique<Buffer>();
  buffer->device = this;
  buffer->address = address;
  buffer->size = size;
  buffer->flags = flags;
  Buffer* raw = buffer.get();
  buffers_.emplace(address, std::move(buffer));
  // The IO block has no ACL (kernels may use what the host reserved there).
  if (address >= kUserBaseAddr) sim_.memory().set_access(address, size, access_of(flags));
  return raw;
}

Buffer* Device::allocate(uint64_t size, int flags) {
  require_idle("vx_mem_alloc");
  check_flags("vx_mem_alloc", flags);
  if (size == 0) throw InputError("vx_mem_alloc", "size", "expected a size > 0");
  const uint64_t need = align_up(size, kAllocAlignment);
  uint64_t candidate = kHeapBegin;
  for (const auto& [address, buffer] : buffers_) {
    const uint64_t end = uint64_t{address} + buffer->size;
    if (end <= candidate) continue;
    if (address >= kHeapEnd) break;
    if (candidate + need <= address) break;
    candidate = align_up(end, kAllocAlignment);
  }
  if (candidate + need > kHeapEnd) {
    throw WorkError("vx_mem_alloc: out of device memory: no free range of " + std::to_string(size) + " bytes in [" +
                    hex(kHeapBegin) + ", " + hex(kHeapEnd) + ") (" + std::to_string(heap_free()) + " bytes free in all)");
  }
  return insert(static_cast<uint32_t>(candidate), size, flags);
}

Buffer* Device::reserve(uint64_t address, uint64_t size, int flags) {
  require_idle("vx_mem_reserve");
  check_flags("vx_mem_reserve", flags);
  if (size == 0) throw InputError("vx_mem_reserve", "size", "expected a size > 0");
  // As SimX: anywhere in the 4 GiB space but the console, including the IO block's counter
  // area (kernels may then use the reserved range; their counters and exit code are stored
  // there at exit, as on Vortex). A range may not straddle the end of the IO block.
  const bool in_io = address < kUserBaseAddr;
  if (address < kIoMpmAddr || address + size > (uint64_t{1} << 32) || address + size < address ||
      (in_io && address + size > kUserBaseAddr)) {
    throw InputError("vx_mem_reserve", "address",
                     "range [" + hex(address) + ", " + hex(address + size) + ") must lie in [" + hex(kIoMpmAddr) +
                         ", " + hex(kUserBaseAddr) + ") (the IO block after the console) or in [" +
                         hex(kUserBaseAddr) + ", 0x100000000)");
  }
  for (const auto& [base, buffer] : buffers_) {
    if (base < address + size && address < uint64_t{base} + buffer->size) {
      throw WorkError("vx_mem_reserve: range [" + hex(address) + ", " + hex(address + size) +
                      ") overlaps the buffer [" + hex(base) + ", " + hex(base + buffer->size) + ")");
    }
  }
  if (in_io) sim_.map_io(static_cast<uint32_t>(address + size));
  return insert(static_cast<uint32_t>(address), size, flags);
}

void Device::free(Buffer* buffer) {
  require_idle("vx_mem_free");
  if (buffer->address >= kUserBaseAddr) sim_.memory().clear_access(buffer->address, buffer->size);
  buffers_.erase(buffer->address);
}

void Device::set_access(Buffer* buffer, uint64_t offset, uint64_t size, int flags) {
  require_idle("vx_mem_access");
  check_flags("vx_mem_access", flags);
  check_range(buffer, offset, size, "vx_mem_access");
  if (size == 0) return;
  sim_.memory().set_access(static_cast<uint32_t>(buffer->address + offset), size, access_of(flags));
}

void Device::copy_to(Buffer* buffer, const void* host, uint64_t offset, uint64_t size) {
  require_idle("vx_copy_to_dev");
  check_range(buffer, offset, size, "vx_copy_to_dev");
  if (size == 0) return;
  if (host == nullptr) throw InputError("vx_copy_to_dev", "host_ptr", "expected a host pointer, got NULL");
  if (buffer->address < kUserBaseAddr) {
    sim_.write_io(static_cast<uint32_t>(buffer->address + offset), host, size);
    return;
  }
  sim_.memory().write(static_cast<uint32_t>(buffer->address + offset), host, size);
}

void Device::copy_from(void* host, Buffer* buffer, uint64_t offset, uint64_t size) {
  require_idle("vx_copy_from_dev");
  check_range(buffer, offset, size, "vx_copy_from_dev");
  if (size == 0) return;
  if (host == nullptr) throw InputError("vx_copy_from_dev", "host_ptr", "expected a host pointer, got NULL");
  if (buffer->address < kUserBaseAddr) {
    std::memcpy(host, sim_.io_block().data() + buffer->address + offset, size);
    return;
  }
  sim_.memory().read(static_cast<uint32_t>(buffer->address + offset), host, size);
}

uint64_t Device::heap_used() const {
  uint64_t used = 0;
  for (const auto& [address, buffer] : buffers_) {
    const uint64_t begin = std::max<uint64_t>(address, kHeapBegin);
    const uint64_t end = std::min<uint64_t>(uint64_t{address} + buffer->size, kHeapEnd);
    if (end > begin) used += end - begin;
  }
  return used;
}

uint64_t Device::heap_free() const { return (kHeapEnd - kHeapBegin) - heap_used(); }

Buffer* Device::upload_kernel(std::span<const uint8_t> bytes, const std::string& name) {
  require_idle("vx_upload_kernel");
  const ProgramImage image = parse_program(bytes, name);
  const uint32_t min_vma = image.info.min_vma;
  const uint32_t max_vma = image.info.max_vma;
  if (max_vma <= min_vma) {
    throw InputError(name, "max_vma", "expected a program with a non-empty image, got [" + hex(min_vma) + ", " +
                                          hex(max_vma) + ")");
  }
  Buffer* buffer = reserve(min_vma, uint64_t{max_vma} - min_vma, kFlagRead | kFlagWrite);
  try {
    const ProgramInfo info = sim_.load_program_bytes(bytes, name, /*apply_acl=*/true);
    buffer->entry = info.entry;
    kernel_name_ = name;
  } catch (...) {
    free(buffer);
    throw;
  }
  return buffer;
}

void Device::start(Buffer* kernel, Buffer* arguments) {
  require_idle("vx_start");
  if (!kernel->entry) {
    throw InputError("vx_start", "hkernel",
                     "expected a kernel buffer from vx_upload_kernel_bytes/vx_upload_kernel_file, got the data buffer at " +
                         hex(kernel->address));
  }
  if (worker_.joinable()) worker_.join();
  sim_.write_dcr(VX_DCR_BASE_STARTUP_ADDR0, *kernel->entry);
  sim_.write_dcr(VX_DCR_BASE_STARTUP_ADDR1, 0);
  sim_.write_dcr(VX_DCR_BASE_STARTUP_ARG0, arguments != nullptr ? arguments->address : 0);
  sim_.write_dcr(VX_DCR_BASE_STARTUP_ARG1, 0);
  if (auto profiling = env_number("VORTEX_PROFILING")) {
    sim_.write_dcr(VX_DCR_BASE_MPM_CLASS, static_cast<uint32_t>(*profiling));
  }
  {
    std::lock_guard lock(mutex_);
    running_ = true;
  }
  worker_ = std::thread([this] { run_launch(); });
}

void Device::run_launch() {
  Outcome outcome;
  try {
    const RunResult result = sim_.run();
    outcome.exit_code = result.exit_code;
  } catch (const SimFault& fault) {
    outcome.faulted = true;
    outcome.error = fault.report().to_string();
  } catch (const std::exception& error) {
    outcome.faulted = true;
    outcome.error = error.what();
  }
  std::fflush(stdout);
  std::lock_guard lock(mutex_);
  total_ += sim_.counters();
  const auto& cores = sim_.core_counters();
  for (size_t i = 0; i < cores.size() && i < per_core_.size(); ++i) per_core_[i] += cores[i];
  ++launches_;
  LaunchRecord record;
  record.counters = sim_.counters();
  const auto rows = region_rows(sim_, timing_.get());
  record.regions = regions_json(rows, sim_.config().threads);
  record.outside_regions = counters_json_one(outside_regions(sim_, rows), sim_.config().threads);
  if (timing_) {
    timing_total_ += timing_->summary();
    record.cycles = timing_->cycles();
    record.timed_instrs = timing_->summary().total.instrs;
  }
  launch_log_.push_back(record);
  outcome_ = std::move(outcome);
  running_ = false;
  done_cv_.notify_all();
}

bool Device::busy() const {
  std::lock_guard lock(mutex_);
  return running_;
}

bool Device::wait(uint64_t timeout_ms) {
  // Cap the wait so now() + timeout cannot overflow the clock (one year is "forever" here).
  const uint64_t capped = std::min<uint64_t>(timeout_ms, uint64_t{365} * 24 * 3600 * 1000);
  {
    std::unique_lock lock(mutex_);
    if (!done_cv_.wait_for(lock, std::chrono::milliseconds(capped), [this] { return !running_; })) return false;
  }
  if (worker_.joinable()) worker_.join();
  return true;
}

uint64_t Device::stored_counter(uint32_t core, uint32_t slot) const {
  if (core >= config().cores || slot >= 32) {
    throw InputError("vx_mpm_query", "core/slot", "expected a core below " + std::to_string(config().cores) +
                                                      " and a slot below 32, got " + std::to_string(core) + "/" +
                                                      std::to_string(slot));
  }
  uint64_t value = 0;
  std::memcpy(&value, sim_.io_block().data() + kIoMpmAddr + kIoMpmCoreStride * core + 8 * slot, 8);
  return value;
}

Json Device::run_json() const {
  std::lock_guard lock(mutex_);
  const Config& config = sim_.config();
  Json doc;
  doc["schema"] = schema_id("vxsim-run", 1);
  doc["kernel"] = kernel_name_;
  doc["launches"] = launches_;
  doc["config"] = {{"cores", config.cores},
                   {"warps", config.warps},
                   {"threads", config.threads},
                   {"local_mem_size", config.local_mem_bytes},
                   {"max_instructions", config.max_instructions}};
  doc["exit_code"] = outcome_.faulted ? Json(nullptr) : Json(outcome_.exit_code);
  doc["fault"] = outcome_.faulted ? Json{{"report", outcome_.error}} : Json(nullptr);
  if (timing_) {
    doc["instrs"] = timing_total_.total.instrs;
    doc["cycles"] = timing_total_.cycles;
    doc["ipc"] = timing_total_.total.instrs / static_cast<double>(std::max<uint64_t>(1, timing_total_.cycles));
    doc["note"] = "vortex2 timing model through the host API; counters summed over " + std::to_string(launches_) +
                  " launch(es), start-up code included";
    doc["timing"] = timing::timing_to_json(timing_total_, timing_->params(), config);
  } else {
    doc["instrs"] = total_.simx_thread_instructions(config.threads);
    doc["cycles"] = nullptr;
    doc["ipc"] = nullptr;
    doc["note"] = "functional simulation through the host API: cycles and IPC are not modelled (VXSIM_TIMING=vortex2 models them)";
  }
  doc["counters"] = counters_to_json(total_, per_core_, config);
  // Per launch, its regions (as `sim run --json` gives them for its one launch); with one launch
  // they are the document's own "regions" and "outside_regions" too.
  Json per_launch = Json::array();
  for (const LaunchRecord& r : launch_log_) {
    per_launch.push_back({{"instrs", timing_ ? Json(r.timed_instrs) : Json(nullptr)},
                          {"cycles", timing_ ? Json(r.cycles) : Json(nullptr)},
                          {"regions", r.regions},
                          {"outside_regions", r.outside_regions}});
  }
  doc["per_launch"] = per_launch;
  if (launch_log_.size() == 1) {
    doc["regions"] = launch_log_.front().regions;
    doc["outside_regions"] = launch_log_.front().outside_regions;
  }
  return doc;
}

void Device::dump_perf(std::FILE* stream) const {
  std::lock_guard lock(mutex_);
  if (timing_) {
    std::fprintf(stream,
                 "PERF: vxsim with the vortex2 timing model: totals over %" PRIu64
                 " launch(es), start-up code included; instrs = thread-instructions (a WMMA as its micro-ops, as "
                 "SimX); loads/stores = lane accesses\n",
                 launches_);
    if (launch_log_.size() > 1) {
      for (size_t i = 0; i < launch_log_.size(); ++i) {
        const LaunchRecord& r = launch_log_[i];
        std::fprintf(stream, "PERF: launch %zu: instrs=%" PRIu64 ", cycles=%" PRIu64 ", IPC=%f\n", i, r.timed_instrs,
                     r.cycles, r.cycles == 0 ? 0.0 : static_cast<double>(r.timed_instrs) / r.cycles);
      }
    }
    std::ostringstream text;
    timing::print_timing_perf(text, timing_total_, sim_.config().threads);
    std::fputs(text.str().c_str(), stream);
    return;
  }
  // Vortex's summary form; this simulator is functional, so there are no cycles to report.
  std::fprintf(stream, "PERF: vxsim functional simulator: cycles are not modelled; instrs = thread-instructions "
                       "(a WMMA as its micro-ops, as SimX) over %" PRIu64 " launch(es)\n",
               launches_);
  // VORTEX_PROFILING=1 (MPM class "core") adds the functional counters of each core, with
  // loads and stores counted per active lane as Vortex does.
  const bool core_class = sim_.read_dcr(VX_DCR_BASE_MPM_CLASS) >= VX_DCR_MPM_CLASS_CORE;
  const uint32_t threads = sim_.config().threads;
  for (size_t core = 0; core < per_core_.size(); ++core) {
    const Counters& c = per_core_[core];
    if (core_class) {
      std::fprintf(stream,
                   "PERF: core%zu: warp instrs=%" PRIu64 ", active lanes=%.1f%%, loads=%" PRIu64 ", stores=%" PRIu64
                   ", divergent splits=%" PRIu64 ", barrier waits=%" PRIu64 ", warps spawned=%" PRIu64 "\n",
                   core, c.warp_instructions, 100.0 * c.active_lane_fraction(threads),
                   c.thread_by_class[static_cast<size_t>(OpClass::kLoad)],
                   c.thread_by_class[static_cast<size_t>(OpClass::kStore)], c.divergent_splits, c.barrier_waits,
                   c.warps_spawned);
    }
    if (per_core_.size() > 1) {
      std::fprintf(stream, "PERF: core%zu: instrs=%" PRIu64 ", cycles=n/a, IPC=n/a\n", core,
                   c.simx_thread_instructions(threads));
    }
  }
  if (total_.tensor_uops != 0) {
    std::fprintf(stream,
                 "PERF: tensor: wmma=%" PRIu64 ", uops=%" PRIu64 ", flops=%" PRIu64 ", int ops=%" PRIu64
                 ", issue share=%.1f%%, thread-instrs with one per WMMA=%" PRIu64 "\n",
                 total_.warp_by_class[static_cast<size_t>(OpClass::kTensor)], total_.tensor_uops,
                 total_.tensor_flops, total_.tensor_int_ops, 100.0 * total_.tensor_issue_share(),
                 total_.thread_instructions);
  }
  std::fprintf(stream, "PERF: instrs=%" PRIu64 ", cycles=n/a, IPC=n/a\n", total_.simx_thread_instructions(threads));
}

}  // namespace vxsynth::vxsim::host
