#pragma once
// What `gtv-cli record` tells the recorder it injects into a program: environment variables that the command sets
// and that every process of the program's tree reads when CUDA loads the recorder (InitializeInjection). Std-only,
// so the command line (which never loads CUPTI) and the injected library share the names and the parsing.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/base/time.h"
#include "gtv/collect/records.h"
#include "gtv/model/records.h"

namespace gtv::collect {

inline constexpr const char* kRecordDirEnv = "GTV_RECORD_DIR";               // where each process writes its file
inline constexpr const char* kRecordCaptureEnv = "GTV_RECORD_CAPTURE";       // "cudaProfilerApi", "nvtx:NAME"
inline constexpr const char* kRecordStartEnv = "GTV_RECORD_START_UNIX_NS";   // when the program was started
inline constexpr const char* kRecordDelayEnv = "GTV_RECORD_DELAY_NS";        // window start after that
inline constexpr const char* kRecordDurationEnv = "GTV_RECORD_DURATION_NS";  // window length (0: to the end)
inline constexpr const char* kRecordMaxEventsEnv = "GTV_RECORD_MAX_EVENTS";  // records kept per process
inline constexpr std::int64_t kDefaultMaxEvents = 5'000'000;                 // about 1 GB of memory at most

enum class CaptureMode : std::uint8_t {
  Whole,        // everything from CUDA's initialisation to the process's exit
  Time,         // from start + delay, for duration (0: to the end)
  ProfilerApi,  // between cudaProfilerStart and cudaProfilerStop (cuProfilerStart/Stop), as often as called
  Nvtx,         // inside NVTX ranges of a name (push/pop or start/end, any domain)
};

struct RecordSettings {
  std::string dir;
  CaptureMode capture = CaptureMode::Whole;
  std::string nvtx_name;  // CaptureMode::Nvtx
  UnixNs start_unix_ns = 0;
  TimeNs delay_ns = 0;
  TimeNs duration_ns = 0;
  std::int64_t max_events = kDefaultMaxEvents;
};

// --capture-range's text: "cudaProfilerApi" or "nvtx:NAME" (NAME not empty). Errors are one line.
[[nodiscard]] Status parse_capture_range(std::string_view text, RecordSettings& settings);
// Seconds as given to --delay and --duration ("2", "0.5"): finite, at least 0, at most a million; errors name option.
[[nodiscard]] Expected<TimeNs> parse_seconds(std::string_view option, std::string_view text);
// "cudaProfilerApi", "nvtx:NAME", "delay 2 s, for 5 s", "whole run".
[[nodiscard]] std::string describe_capture(const RecordSettings& settings);

// The variables for settings, as (name, value).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> record_environment(const RecordSettings& settings);

// Looks an environment variable up: nullptr when unset (std::getenv in production, a map in tests).
using EnvLookup = std::function<const char*(const char*)>;
// The settings from the variables. Errors name the variable and what it holds; a missing GTV_RECORD_DIR is one.
[[nodiscard]] Expected<RecordSettings> record_settings_from(const EnvLookup& lookup);

// The process's rank in a launcher's job (torchrun, mpirun through RANK/WORLD_SIZE): rank -1 when RANK or
// WORLD_SIZE is missing, not a number, or outside 0 <= RANK < WORLD_SIZE.
struct LauncherRank {
  DistributedInfo distributed;
  std::int64_t local_rank = -1;  // LOCAL_RANK, -1 when absent
};
[[nodiscard]] LauncherRank launcher_rank(const EnvLookup& lookup);

}  // namespace gtv::collect
