// Hostile inputs: a file that shrinks while it is read, blanks that inflate to gigabytes, oversized top-level
// values, endless devices and pipes. Each gives a one-line error or reads in bounded memory, never a crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <thread>

#include "gtv/io/trace_file.h"
#include "input/input_bytes.h"
#include "read_input.h"
#include "test_util.h"

namespace gtv::io {
namespace {

// A valid trace of `events` complete events (about 70 bytes each): several chunks of the reader.
std::string trace_text(int events, const std::string& before_events = "") {
  std::string s = "{" + before_events + "\"traceEvents\": [";
  for (int i = 0; i < events; ++i) {
    if (i > 0) s += ",\n";
    s += R"({"ph": "X", "name": "k", "pid": 1, "tid": 1, "ts": )" + std::to_string(i * 10) + R"(, "dur": 5})";
  }
  return s + "]}";
}

void expect_one_line(const std::string& message, const std::string& name, std::string_view part) {
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind(name + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(part), std::string::npos) << message;
}

// The file is cut short after it was opened and before the reader read it, as when a profiler still writes it or
// a log rotation truncates it: the reader reports it (a mapped file raised SIGBUS here).
TEST(HostileInput, FileThatShrinksWhileReadIsAnError) {
  const std::string path = test::scratch_dir("hostile_shrink") + "/t.json";
  const std::string text = trace_text(100000);
  for (const std::size_t keep : {text.size() / 2, std::size_t{0}}) {
    test::write_file(path, text);
    Expected<InputBytes> input = InputBytes::open(path, {});
    ASSERT_TRUE(input.ok()) << input.error().message;
    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(keep)), 0);
    Expected<Trace> t = read_trace_input(*input, path, {});
    ASSERT_FALSE(t.ok());
    expect_one_line(t.error().message, path, "shrank while it was read");
  }
}

TEST(HostileInput, FileThatShrinksWhileReadIsAnErrorWhenGzip) {
  const std::string path = test::scratch_dir("hostile_shrink_gz") + "/t.json.gz";
  const std::string gz = test::gzip_bytes(trace_text(100000));
  test::write_file(path, gz);
  Expected<InputBytes> input = InputBytes::open(path, {});
  ASSERT_TRUE(input.ok()) << input.error().message;
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(gz.size() / 2)), 0);
  Expected<Trace> t = read_trace_input(*input, path, {});
  ASSERT_FALSE(t.ok());
  expect_one_line(t.error().message, path, "shrank while it was read");
}

// 40 MiB of blanks at every place where blanks may be: the reader holds its smallest window (16 MiB) at most.
TEST(HostileInput, GzipOfBlanksIsReadInBoundedMemory) {
  const std::string blanks(40 << 20, ' ');
  const std::string events = R"({"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2},)" + blanks +
                             R"({"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 5, "dur": 2})";
  const std::vector<std::string> texts = {
      "{\"traceEvents\": [" + blanks + events + blanks + "]" + blanks + "}" + blanks,
      blanks + "{" + blanks + "\"schemaVersion\"" + blanks + ":" + blanks + "1," + blanks + "\"traceEvents\": [" +
          events + "]}",
      "[" + blanks + events + blanks,
  };
  for (const std::string& text : texts) {
    const std::string gz = test::gzip_bytes(text);
    ReadStats stats;
    ReadOptions options;
    options.stats = &stats;
    Expected<Trace> t = read_trace_from_memory(gz, "blanks.json.gz", options);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->event_count(), 2u);
    EXPECT_EQ(stats.json_bytes, text.size());
    EXPECT_LE(stats.peak_buffered_bytes, 24u << 20);
  }
}

TEST(HostileInput, GzipFileReadsLikeThePlainFile) {
  const std::string dir = test::scratch_dir("hostile_gzip_file");
  const std::string text = trace_text(500000);
  test::write_file(dir + "/t.json", text);
  test::write_file(dir + "/t.json.gz", test::gzip_bytes(text));
  ReadStats plain_stats, gz_stats;
  ReadOptions plain_options, gz_options;
  plain_options.stats = &plain_stats;
  gz_options.stats = &gz_stats;
  Expected<Trace> plain = read_trace(dir + "/t.json", plain_options);
  Expected<Trace> gz = read_trace(dir + "/t.json.gz", gz_options);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  ASSERT_TRUE(gz.ok()) << gz.error().message;
  EXPECT_EQ(plain->event_count(), 500000u);
  EXPECT_EQ(gz->event_count(), 500000u);
  EXPECT_TRUE(gz_stats.gzip);
  EXPECT_EQ(gz_stats.json_bytes, text.size());
  EXPECT_LE(gz_stats.peak_buffered_bytes, 24u << 20);
  EXPECT_LE(plain_stats.peak_buffered_bytes, 24u << 20);
  EXPECT_LT(plain_stats.peak_buffered_bytes, text.size() / 2);
}

TEST(HostileInput, OversizedTopLevelValuesAreErrors) {
  const std::string big(2 << 20, 'x');
  ReadOptions options;
  options.max_value_bytes = 1 << 20;
  for (const std::string key : {"gtv", "deviceProperties", "distributedInfo", "baseTimeNanoseconds"}) {
    const std::string text = trace_text(3, "\"" + key + "\": {\"note\": \"" + big + "\"}, ");
    Expected<Trace> t = read_trace_from_memory(text, "big.json", options);
    ASSERT_FALSE(t.ok()) << key;
    expect_one_line(t.error().message, "big.json", "top-level value '" + key + "' is larger than 1 MiB");
    const std::string gz = test::gzip_bytes(text);
    t = read_trace_from_memory(gz, "big.json.gz", options);
    ASSERT_FALSE(t.ok()) << key;
    expect_one_line(t.error().message, "big.json.gz", "is larger than 1 MiB");
  }
  // Values the reader does not use are skipped as a stream, whatever their size.
  const std::string unused = trace_text(3, "\"otherData\": {\"note\": [\"" + big + "\", 1, {}]}, ");
  EXPECT_TRUE(read_trace_from_memory(unused, "big.json", options).ok());
  Expected<Trace> t = read_trace_from_memory(test::gzip_bytes(unused), "big.json.gz", options);
  EXPECT_TRUE(t.ok()) << t.error().message;
}

TEST(HostileInput, ValueLimitFromTheEnvironment) {
  const std::string text = trace_text(3, "\"gtv\": {\"note\": \"" + std::string(3 << 20, 'x') + "\"}, ");
  ::setenv("GTV_MAX_VALUE_BYTES", "2M", 1);
  Expected<Trace> t = read_trace_from_memory(text, "env.json");
  ::unsetenv("GTV_MAX_VALUE_BYTES");
  ASSERT_FALSE(t.ok());
  expect_one_line(t.error().message, "env.json", "is larger than 2 MiB");
  EXPECT_TRUE(read_trace_from_memory(text, "env.json").ok());
}

TEST(HostileInput, DevZeroIsAnError) {
  Expected<Trace> t = read_trace("/dev/zero");
  ASSERT_FALSE(t.ok());
  expect_one_line(t.error().message, "/dev/zero", "not a JSON trace");
}

// A pipe that never ends (blanks only): the stream limit ends it.
TEST(HostileInput, EndlessPipeHitsTheStreamLimit) {
  std::signal(SIGPIPE, SIG_IGN);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread writer([fd = fds[1]] {
    const std::string blanks(1 << 16, ' ');
    while (::write(fd, blanks.data(), blanks.size()) > 0) {
    }
    ::close(fd);
  });
  const std::string path = "/dev/fd/" + std::to_string(fds[0]);
  ReadOptions options;
  options.max_stream_bytes = 4 << 20;
  Expected<Trace> t = read_trace(path, options);
  ::close(fds[0]);  // the writer gets EPIPE and stops
  writer.join();
  ASSERT_FALSE(t.ok());
  expect_one_line(t.error().message, path, "larger than 4 MiB");
}

}  // namespace
}  // namespace gtv::io
