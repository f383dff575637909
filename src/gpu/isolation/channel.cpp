#include "gpu/isolation/channel.h"

#include <errno.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "common/error.h"

namespace vxsynth::gpu::isolation {
namespace {
constexpr std::size_t kMaxMessage = 1 << 20;
}

void send_message(int fd, const Json& message, int pass_fd) {
  const std::string text = message.dump();
  if (text.size() > kMaxMessage) throw WorkError("channel: message of " + std::to_string(text.size()) + " bytes is too long");
  iovec iov{const_cast<char*>(text.data()), text.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (pass_fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
  }
  ssize_t n;
  do {
    n = sendmsg(fd, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0 || static_cast<std::size_t>(n) != text.size()) {
    throw WorkError(std::string("channel: send failed: ") + (n < 0 ? std::strerror(errno) : "short write"));
  }
}

ReceiveStatus receive_message(int fd, double timeout_seconds, Json* message, int* received_fd) {
  if (received_fd) *received_fd = -1;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  for (;;) {
    int wait_ms = -1;
    if (timeout_seconds > 0) {
      const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      if (left <= 0) return ReceiveStatus::timeout;
      wait_ms = static_cast<int>(left * 1000) + 1;
    }
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw WorkError(std::string("channel: poll failed: ") + std::strerror(errno));
    if (r == 0) continue;  // re-check the deadline
    break;
  }
  std::vector<char> buf(kMaxMessage);
  iovec iov{buf.data(), buf.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t n;
  do {
    n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && errno == ECONNRESET) return ReceiveStatus::closed;
  if (n < 0) throw WorkError(std::string("channel: receive failed: ") + std::strerror(errno));
  if (n == 0) return ReceiveStatus::closed;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int got = -1;
      std::memcpy(&got, CMSG_DATA(c), sizeof(int));
      if (received_fd) *received_fd = got;
      else close(got);
    }
  }
  if (msg.msg_flags & MSG_TRUNC) throw WorkError("channel: message longer than " + std::to_string(kMaxMessage) + " bytes");
  try {
    *message = Json::parse(std::string(buf.data(), static_cast<std::size_t>(n)));
  } catch (const std::exception& e) {
    throw WorkError(std::string("channel: malformed message: ") + e.what());
  }
  return ReceiveStatus::ok;
}

SharedBuffer::SharedBuffer(std::size_t bytes) {
  fd_ = memfd_create("vxsynth-channel", MFD_CLOEXEC);
  if (fd_ < 0) throw WorkError(std::string("channel: memfd_create failed: ") + std::strerror(errno));
  if (ftruncate(fd_, static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    release();
    throw WorkError("channel: cannot size the shared buffer to " + std::to_string(bytes) + " bytes: " + std::strerror(err));
  }
  size_ = bytes;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    release();
    throw WorkError(std::string("channel: mmap of the shared buffer failed: ") + std::strerror(err));
  }
  data_ = static_cast<std::uint8_t*>(p);
}

SharedBuffer::SharedBuffer(int fd, std::size_t bytes) : fd_(fd), size_(bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    release();
    throw WorkError(std::string("channel: mmap of the received shared buffer failed: ") + std::strerror(err));
  }
  data_ = static_cast<std::uint8_t*>(p);
}

SharedBuffer::~SharedBuffer() { release(); }

SharedBuffer::SharedBuffer(SharedBuffer&& o) noexcept : fd_(o.fd_), data_(o.data_), size_(o.size_) {
  o.fd_ = -1;
  o.data_ = nullptr;
  o.size_ = 0;
}

SharedBuffer& SharedBuffer::operator=(SharedBuffer&& o) noexcept {
  if (this != &o) {
    release();
    fd_ = o.fd_;
    data_ = o.data_;
    size_ = o.size_;
    o.fd_ = -1;
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

void SharedBuffer::release() {
  if (data_) munmap(data_, size_);
  if (fd_ >= 0) close(fd_);
  data_ = nullptr;
  fd_ = -1;
  size_ = 0;
}

std::string to_hex(const void* data, std::size_t bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(bytes * 2);
  const auto* p = static_cast<const std::uint8_t*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    s.push_back(digits[p[i] >> 4]);
    s.push_back(digits[p[i] & 15]);
  }
  return s;
}

void from_hex(const std::string& hex, void* data, std::size_t bytes) {
  if (hex.size() != 2 * bytes) {
    throw WorkError("channel: expected " + std::to_string(bytes) + " bytes of hex, got " + std::to_string(hex.size() / 2));
  }
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw WorkError("channel: bad hex digit");
  };
  auto* p = static_cast<std::uint8_t*>(data);
  for (std::size_t i = 0; i < bytes; ++i) p[i] = static_cast<std::uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
}

}  // namespace vxsynth::gpu::isolation
