#include "gtv/collect/record_settings.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace gtv::collect {
namespace {

constexpr std::string_view kNvtxPrefix = "nvtx:";

std::optional<std::int64_t> to_int(const char* text) {
  if (text == nullptr) return std::nullopt;
  const std::string_view s(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return value;
}

Expected<std::int64_t> non_negative(const EnvLookup& lookup, const char* name, std::int64_t fallback) {
  const char* text = lookup(name);
  if (text == nullptr || *text == '\0') return fallback;
  const std::optional<std::int64_t> value = to_int(text);
  if (!value || *value < 0) return Error{std::string(name) + "='" + text + "' is not a whole number of at least 0"};
  return *value;
}

}  // namespace

Status parse_capture_range(std::string_view text, RecordSettings& settings) {
  if (text == "cudaProfilerApi") {
    settings.capture = CaptureMode::ProfilerApi;
    settings.nvtx_name.clear();
    return ok_status();
  }
  if (text.substr(0, kNvtxPrefix.size()) == kNvtxPrefix && text.size() > kNvtxPrefix.size()) {
    settings.capture = CaptureMode::Nvtx;
    settings.nvtx_name = std::string(text.substr(kNvtxPrefix.size()));
    return ok_status();
  }
  return Error{"capture range '" + std::string(text) + "' is neither cudaProfilerApi nor nvtx:NAME"};
}

Expected<TimeNs> parse_seconds(std::string_view option, std::string_view text) {
  const std::string copy(text);
  char* end = nullptr;
  const double seconds = std::strtod(copy.c_str(), &end);
  const bool whole = !copy.empty() && end == copy.c_str() + copy.size();
  if (!whole || !std::isfinite(seconds) || seconds < 0 || seconds > 1e6)
    return Error{std::string(option) + " wants seconds from 0 to 1000000, got '" + copy + "'"};
  return static_cast<TimeNs>(std::llround(seconds * 1e9));
}

std::string describe_capture(const RecordSettings& s) {
  const auto seconds = [](TimeNs ns) {
    std::string text = std::to_string(static_cast<double>(ns) / 1e9);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
    return text + " s";
  };
  switch (s.capture) {
    case CaptureMode::Whole:
      return "the whole run";
    case CaptureMode::Time:
      return "from " + seconds(s.delay_ns) + " after the start" +
             (s.duration_ns > 0 ? ", for " + seconds(s.duration_ns) : std::string(" to the end"));
    case CaptureMode::ProfilerApi:
      return "between cudaProfilerStart and cudaProfilerStop";
    case CaptureMode::Nvtx:
      return "inside NVTX ranges named '" + s.nvtx_name + "'";
  }
  return {};
}

std::vector<std::pair<std::string, std::string>> record_environment(const RecordSettings& s) {
  std::vector<std::pair<std::string, std::string>> env{{kRecordDirEnv, s.dir}};
  switch (s.capture) {
    case CaptureMode::Whole:
      break;
    case CaptureMode::Time:
      env.emplace_back(kRecordCaptureEnv, "time");
      break;
    case CaptureMode::ProfilerApi:
      env.emplace_back(kRecordCaptureEnv, "cudaProfilerApi");
      break;
    case CaptureMode::Nvtx:
      env.emplace_back(kRecordCaptureEnv, std::string(kNvtxPrefix) + s.nvtx_name);
      break;
  }
  env.emplace_back(kRecordStartEnv, std::to_string(s.start_unix_ns));
  env.emplace_back(kRecordDelayEnv, std::to_string(s.delay_ns));
  env.emplace_back(kRecordDurationEnv, std::to_string(s.duration_ns));
  env.emplace_back(kRecordMaxEventsEnv, std::to_string(s.max_events));
  return env;
}

Expected<RecordSettings> record_settings_from(const EnvLookup& lookup) {
  RecordSettings s;
  const char* dir = lookup(kRecordDirEnv);
  if (dir == nullptr || *dir == '\0')
    return Error{std::string(kRecordDirEnv) + " is not set: nowhere to write the trace"};
  s.dir = dir;
  if (const char* capture = lookup(kRecordCaptureEnv); capture != nullptr && *capture != '\0') {
    if (std::string_view(capture) == "time") {
      s.capture = CaptureMode::Time;
    } else if (Status parsed = parse_capture_range(capture, s); !parsed) {
      return Error{std::string(kRecordCaptureEnv) + ": " + parsed.error().message};
    }
  }
  for (auto [name, field] : {std::pair{kRecordStartEnv, &s.start_unix_ns}, std::pair{kRecordDelayEnv, &s.delay_ns},
                             std::pair{kRecordDurationEnv, &s.duration_ns}}) {
    const Expected<std::int64_t> value = non_negative(lookup, name, 0);
    if (!value) return value.error();
    *field = *value;
  }
  const Expected<std::int64_t> max_events = non_negative(lookup, kRecordMaxEventsEnv, kDefaultMaxEvents);
  if (!max_events) return max_events.error();
  s.max_events = *max_events;
  if (s.capture == CaptureMode::Time && s.start_unix_ns == 0)
    return Error{std::string(kRecordStartEnv) + " is not set: --delay and --duration need the program's start"};
  return s;
}

LauncherRank launcher_rank(const EnvLookup& lookup) {
  LauncherRank r;
  const std::optional<std::int64_t> rank = to_int(lookup("RANK"));
  const std::optional<std::int64_t> world = to_int(lookup("WORLD_SIZE"));
  if (rank && world && *rank >= 0 && *rank < *world) r.distributed = DistributedInfo{*rank, *world, ""};
  if (const std::optional<std::int64_t> local = to_int(lookup("LOCAL_RANK")); local && *local >= 0)
    r.local_rank = *local;
  return r;
}

}  // namespace gtv::collect
