#pragma once
// Helpers shared by the benchmark programs: wall clock, medians, child processes, resident memory.
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace gtv::bench {

// The whole of text as a number of value's type (options of the benchmark programs); false otherwise.
template <typename T>
[[nodiscard]] bool parse_number(const char* text, T& value) {
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, value);
  return ec == std::errc() && ptr == end;
}

[[nodiscard]] double now_seconds();
[[nodiscard]] double median(std::vector<double> values);
// User + system CPU seconds of this process so far (all threads): less disturbed than wall time when other
// work shares the machine.
[[nodiscard]] double process_cpu_seconds();

// Runs argv[0] (searched in PATH) with stdout captured; returns the exit status (or -1 if it could not start).
int run_process(const std::vector<std::string>& argv, std::string* captured_stdout);

// Fields of /proc/self/status in kB ("VmHWM", "VmRSS"); nullopt if unavailable.
[[nodiscard]] std::optional<std::int64_t> proc_status_kb(const char* field);

[[nodiscard]] std::string self_executable();
// The first line of /proc/loadavg ("7.42 4.85 2.46 ..."): other work on the machine shows in wall times.
[[nodiscard]] std::string load_average();
[[nodiscard]] std::uint64_t file_bytes(const std::string& path);

}  // namespace gtv::bench
