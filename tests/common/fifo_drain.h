#pragma once
// Test helper for writers that must stream into a FIFO instead of replacing it.
#include <poll.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <string>

namespace gtv::test {

// The uid the write-permission tests switch to (they run as root, which no permission stops).
inline constexpr uid_t kNobody = 65534;

// What writers put into the FIFO whose read end is fd (opened with O_NONBLOCK before any writer), until the last
// writer closes it. poll() reports a FIFO's hang-up only once a writer has opened it, so this waits for the first.
inline std::string drain_fifo(int fd) {
  std::string received;
  char buffer[65536];
  for (;;) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, -1) < 0 && errno != EINTR) break;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) break;
    if (n > 0) received.append(buffer, static_cast<std::size_t>(n));
  }
  return received;
}

}  // namespace gtv::test
