// The settings gtv-cli record passes to the injected recorder survive the trip through the environment, and bad
// values are refused naming the variable.
#include "gtv/collect/record_settings.h"

#include <gtest/gtest.h>

#include <map>

namespace gtv::collect {
namespace {

struct FakeEnv {
  std::map<std::string, std::string> vars;
  [[nodiscard]] EnvLookup lookup() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

FakeEnv env_of(const RecordSettings& s) {
  FakeEnv env;
  for (const auto& [name, value] : record_environment(s)) env.vars[name] = value;
  return env;
}

TEST(RecordSettings, EveryCaptureRangeSurvivesTheEnvironment) {
  RecordSettings nvtx;
  nvtx.dir = "/tmp/gtv-record-abc";
  ASSERT_TRUE(parse_capture_range("nvtx:train step", nvtx).ok());
  nvtx.max_events = 1234;
  nvtx.start_unix_ns = 1'790'000'000'000'000'000;
  Expected<RecordSettings> back = record_settings_from(env_of(nvtx).lookup());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->dir, "/tmp/gtv-record-abc");
  EXPECT_EQ(back->capture, CaptureMode::Nvtx);
  EXPECT_EQ(back->nvtx_name, "train step");
  EXPECT_EQ(back->max_events, 1234);
  EXPECT_EQ(back->start_unix_ns, 1'790'000'000'000'000'000);

  RecordSettings timed;
  timed.dir = "d";
  timed.capture = CaptureMode::Time;
  timed.start_unix_ns = 5;
  timed.delay_ns = *parse_seconds("--delay", "2.5");
  timed.duration_ns = *parse_seconds("--duration", "1");
  back = record_settings_from(env_of(timed).lookup());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->capture, CaptureMode::Time);
  EXPECT_EQ(back->delay_ns, 2'500'000'000);
  EXPECT_EQ(back->duration_ns, 1'000'000'000);
  EXPECT_EQ(describe_capture(*back), "from 2.5 s after the start, for 1 s");

  RecordSettings api;
  api.dir = "d";
  ASSERT_TRUE(parse_capture_range("cudaProfilerApi", api).ok());
  back = record_settings_from(env_of(api).lookup());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->capture, CaptureMode::ProfilerApi);
  EXPECT_EQ(back->max_events, kDefaultMaxEvents);
}

TEST(RecordSettings, BadTextIsRefusedInOneLineNamingIt) {
  RecordSettings s;
  EXPECT_EQ(parse_capture_range("nvtx:", s).error().message,
            "capture range 'nvtx:' is neither cudaProfilerApi nor nvtx:NAME");
  EXPECT_FALSE(parse_capture_range("cudaprofilerapi", s).ok());
  EXPECT_EQ(parse_seconds("--delay", "-1").error().message, "--delay wants seconds from 0 to 1000000, got '-1'");
  EXPECT_FALSE(parse_seconds("--delay", "nan").ok());
  EXPECT_FALSE(parse_seconds("--delay", "2s").ok());
  EXPECT_FALSE(parse_seconds("--delay", "").ok());
  EXPECT_FALSE(parse_seconds("--duration", "1e7").ok());

  FakeEnv env;
  EXPECT_EQ(record_settings_from(env.lookup()).error().message,
            "GTV_RECORD_DIR is not set: nowhere to write the trace");
  env.vars[kRecordDirEnv] = "d";
  env.vars[kRecordMaxEventsEnv] = "many";
  EXPECT_EQ(record_settings_from(env.lookup()).error().message,
            "GTV_RECORD_MAX_EVENTS='many' is not a whole number of at least 0");
  env.vars[kRecordMaxEventsEnv] = "10";
  env.vars[kRecordCaptureEnv] = "sometimes";
  EXPECT_FALSE(record_settings_from(env.lookup()).ok());
  env.vars[kRecordCaptureEnv] = "time";
  EXPECT_EQ(record_settings_from(env.lookup()).error().message,
            "GTV_RECORD_START_UNIX_NS is not set: --delay and --duration need the program's start");
}

TEST(RecordSettings, RanksComeFromTheLaunchersEnvironment) {
  FakeEnv env;
  EXPECT_EQ(launcher_rank(env.lookup()).distributed.rank, -1);
  env.vars = {{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}};
  LauncherRank r = launcher_rank(env.lookup());
  EXPECT_EQ(r.distributed.rank, 1);
  EXPECT_EQ(r.distributed.world_size, 2);
  EXPECT_EQ(r.local_rank, 1);
  env.vars["RANK"] = "2";  // outside the world: not a rank
  EXPECT_EQ(launcher_rank(env.lookup()).distributed.rank, -1);
  env.vars["RANK"] = "x";
  EXPECT_EQ(launcher_rank(env.lookup()).distributed.rank, -1);
}

}  // namespace
}  // namespace gtv::collect
