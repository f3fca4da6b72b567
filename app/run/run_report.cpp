#include "run_report.h"

#include <unistd.h>

#include <cerrno>
#include <string>

namespace gtv::run {

void RunReport::wrote(std::uint64_t events, std::string_view path) const {
  line("wrote", std::to_string(events) + " " + std::string(path));
}

void RunReport::line(std::string_view keyword, std::string_view text) const {
  if (fd_ < 0) return;
  std::string out(keyword);
  out += ' ';
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  out += '\n';
  // One write per line: a pipe takes a line up to PIPE_BUF (4 KiB) whole. A reader that went away ends the
  // runner with SIGPIPE (nobody waits for the run); where SIGPIPE is ignored, the line is dropped.
  std::string_view rest = out;
  while (!rest.empty()) {
    const ssize_t n = ::write(fd_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace gtv::run
