#pragma once
// The line protocol gtv-run writes to the file descriptor named by --report-fd, for the program that started it
// (the desktop program's run panel passes --report-fd 1 and reads the runner's stdout). One event per line, in
// UTF-8: a keyword, one space, the rest of the line.
//
//   progress TEXT       a step of the run began; TEXT is the progress line also shown on stderr
//   wrote EVENTS PATH   the trace is complete at PATH (written atomically), with EVENTS events; after a failure
//                       part way this is the trace of what ran so far, and a `failed` line follows
//   failed TEXT         the run failed; TEXT is the one-line reason, as on stderr
//
// Line breaks inside TEXT are written as spaces. The exit status says the rest: 0 the run succeeded (a `wrote`
// line came), 1 it failed (a `failed` line came), 2 a usage error (no lines). A runner stopped by a signal
// writes nothing more; SIGINT, SIGTERM and SIGHUP remove a trace file it was writing.
#include <cstdint>
#include <string_view>

namespace gtv::run {

class RunReport {
 public:
  RunReport() = default;  // reports nowhere
  explicit RunReport(int fd) : fd_(fd) {}

  void progress(std::string_view text) const { line("progress", text); }
  void wrote(std::uint64_t events, std::string_view path) const;
  void failed(std::string_view text) const { line("failed", text); }

 private:
  void line(std::string_view keyword, std::string_view text) const;
  int fd_ = -1;
};

}  // namespace gtv::run
