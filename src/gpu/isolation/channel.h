// The channel between the checking process (the harness) and the candidate process (the
// runner): a SOCK_SEQPACKET socket pair made before the runner starts (one JSON message per
// packet, a file descriptor passed alongside when the shared buffer grows) and a memfd shared
// buffer that carries the tensors (inputs in, the output out). Nothing else crosses: the
// runner never sees the vendor output, the tolerance or the comparison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/json_io.h"

namespace vxsynth::gpu::isolation {

enum class ReceiveStatus { ok, timeout, closed };

// Sends one message (and `pass_fd` when >= 0). WorkError when the peer is gone.
void send_message(int fd, const Json& message, int pass_fd = -1);

// Waits up to timeout_seconds (<= 0: for ever) for one message; *received_fd gets a passed
// descriptor (or -1). A malformed message is a WorkError.
ReceiveStatus receive_message(int fd, double timeout_seconds, Json* message, int* received_fd = nullptr);

// A shared memory buffer (memfd), mapped read-write in the process that holds it.
class SharedBuffer {
 public:
  SharedBuffer() = default;
  explicit SharedBuffer(std::size_t bytes);        // creates a new memfd of this size
  SharedBuffer(int fd, std::size_t bytes);         // maps a received one (takes the fd)
  ~SharedBuffer();
  SharedBuffer(SharedBuffer&& o) noexcept;
  SharedBuffer& operator=(SharedBuffer&& o) noexcept;
  SharedBuffer(const SharedBuffer&) = delete;
  SharedBuffer& operator=(const SharedBuffer&) = delete;

  std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  int fd() const { return fd_; }

 private:
  void release();
  int fd_ = -1;
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

struct HostView {
  const void* data = nullptr;
  std::size_t bytes = 0;
};

// Bytes <-> lower-case hex (the ABI's problem struct crosses as hex in a message).
std::string to_hex(const void* data, std::size_t bytes);
void from_hex(const std::string& hex, void* data, std::size_t bytes);  // WorkError on a size mismatch

// Offsets in the shared buffer are multiples of this (the tensors' alignment).
inline constexpr std::size_t kChannelAlign = 256;
inline std::size_t align_up(std::size_t n) { return (n + kChannelAlign - 1) / kChannelAlign * kChannelAlign; }

}  // namespace vxsynth::gpu::isolation
