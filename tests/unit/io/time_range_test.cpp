// Times near the int64 limits: the reader accepts [-2^62, 2^62) ns and refuses the rest with one line, before any
// difference could overflow (the asan preset runs this under UBSan).
#include <gtest/gtest.h>

#include "gtv/io/trace_file.h"

namespace gtv::io {
namespace {

std::string error_of(std::string_view text) {
  Expected<Trace> t = read_trace_from_memory(text, "limits.json");
  EXPECT_FALSE(t.ok()) << text;
  return t.ok() ? std::string() : t.error().message;
}

std::string events(std::string_view list) { return R"({"traceEvents": [)" + std::string(list) + "]}"; }

// 2^62 ns and INT64_MAX ns in microseconds, as files write them.
constexpr std::string_view kLimitUs = "4611686018427387.904";
constexpr std::string_view kJustInsideUs = "4611686018427387.903";
constexpr std::string_view kInt64MaxUs = "9223372036854775.807";
constexpr std::string_view kInt64MinUs = "-9223372036854775.808";

std::string x_event(std::string_view ts, std::string_view dur) {
  return R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": )" + std::string(ts) + R"(, "dur": )" +
         std::string(dur) + "}";
}
std::string be_event(char ph, std::string_view ts) {
  return R"({"ph": ")" + std::string(1, ph) + R"(", "name": "a", "pid": 1, "tid": 1, "ts": )" + std::string(ts) + "}";
}

}  // namespace

TEST(TimeRange, EndAfterItsBeginAcrossTheWholeInt64RangeIsRefusedNotReportedAsBefore) {
  const std::string message = error_of(events(be_event('B', kInt64MinUs) + ", " + be_event('E', kInt64MaxUs)));
  EXPECT_NE(message.find("outside the accepted time range"), std::string::npos) << message;
  EXPECT_EQ(message.find("before its 'B'"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(TimeRange, TimesOutsideTheRangeAreRefusedWithTheirPosition) {
  for (std::string_view ts : {kLimitUs, kInt64MaxUs, kInt64MinUs, std::string_view("-4611686018427387.905")}) {
    const std::string message = error_of(events(x_event("1", "1") + ", " + x_event(ts, "0")));
    EXPECT_NE(message.find("limits.json: event 1 (byte "), std::string::npos) << message;
    EXPECT_NE(message.find("outside the accepted time range"), std::string::npos) << message;
  }
  const std::string counter = error_of(
      events(R"({"ph": "C", "name": "c", "pid": 1, "ts": )" + std::string(kInt64MaxUs) + R"(, "args": {"v": 1}})"));
  EXPECT_NE(counter.find("outside the accepted time range"), std::string::npos) << counter;
}

TEST(TimeRange, AnEndBeyondTheRangeIsRefused) {
  const std::string message = error_of(events(x_event(kJustInsideUs, "0.001")));
  EXPECT_NE(message.find("end (ts + dur) is outside the accepted time range"), std::string::npos) << message;
  const std::string overflow = error_of(events(x_event(kJustInsideUs, kInt64MaxUs)));
  EXPECT_NE(overflow.find("outside the accepted time range"), std::string::npos) << overflow;
}

TEST(TimeRange, TheWholeRangeIsAccepted) {
  Expected<Trace> t = read_trace_from_memory(events(be_event('B', "-4611686018427387.904") + ", " +
                                                    be_event('E', kJustInsideUs) + ", " + x_event(kJustInsideUs, "0")),
                                             "limits.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->event_count(), 2u);
  EXPECT_EQ(t->start_ns(), kMinTraceTimeNs);
  EXPECT_EQ(t->end_ns(), kMaxTraceTimeNs);
  EXPECT_EQ(t->lane(0).events[0].duration_ns, std::numeric_limits<TimeNs>::max());
}

}  // namespace gtv::io
