// Bad input: every case gives one line that names the file and, where known, the byte offset or event index.
#include <gtest/gtest.h>

#include <random>

#include "gtv/io/trace_file.h"
#include "test_util.h"

namespace gtv::io {
namespace {

// The error of reading text as file `name`; fails the test when the read succeeds.
std::string error_of(std::string_view text, const std::string& name = "bad.json", ReadOptions options = {}) {
  Expected<Trace> t = read_trace_from_memory(text, name, options);
  EXPECT_FALSE(t.ok()) << "read succeeded: " << text.substr(0, 200);
  return t.ok() ? std::string() : t.error().message;
}

void expect_line(const std::string& message, std::initializer_list<std::string_view> parts,
                 const std::string& name = "bad.json") {
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind(name + ": ", 0), 0u) << message;
  for (std::string_view part : parts) EXPECT_NE(message.find(part), std::string::npos) << message;
}

constexpr std::string_view kGood =
    R"({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2},)"
    R"( {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 5, "dur": 2}]})";

TEST(BadInput, EmptyAndBlankFiles) {
  const std::string dir = test::scratch_dir("bad_empty");
  test::write_file(dir + "/empty.json", "");
  Expected<Trace> t = read_trace(dir + "/empty.json");
  ASSERT_FALSE(t.ok());
  expect_line(t.error().message, {"empty"}, dir + "/empty.json");
  expect_line(error_of(""), {"empty"});
  expect_line(error_of(" \n\t "), {"empty"});
}

TEST(BadInput, NonexistentFileAndDirectory) {
  Expected<Trace> t = read_trace("/nonexistent/trace.json");
  ASSERT_FALSE(t.ok());
  expect_line(t.error().message, {"cannot open", "No such file"}, "/nonexistent/trace.json");
  const std::string dir = test::scratch_dir("bad_dir");
  Expected<Trace> d = read_trace(dir);
  ASSERT_FALSE(d.ok());
  expect_line(d.error().message, {"directory"}, dir);
}

TEST(BadInput, TruncatedJsonAtEveryByte) {
  // Every proper prefix of a valid trace is an error (never a crash), with a byte offset or event index.
  ASSERT_TRUE(read_trace_from_memory(kGood, "good.json").ok());
  for (std::size_t cut = 1; cut + 1 < kGood.size(); ++cut) {
    SCOPED_TRACE(cut);
    const std::string message = error_of(kGood.substr(0, cut));
    expect_line(message, {});
    EXPECT_TRUE(message.find("byte ") != std::string::npos || message.find("event ") != std::string::npos) << message;
  }
  expect_line(error_of(kGood.substr(0, 60)), {"event 0", "byte "});  // inside the first event
}

TEST(BadInput, TruncatedAndCorruptGzip) {
  const std::string gz = test::gzip_bytes(std::string(kGood));
  ASSERT_TRUE(read_trace_from_memory(gz, "good.json.gz").ok());
  expect_line(error_of(gz.substr(0, gz.size() / 2), "bad.json.gz"), {"truncated gzip"}, "bad.json.gz");
  expect_line(error_of(gz.substr(0, gz.size() - 4), "bad.json.gz"), {"truncated gzip"}, "bad.json.gz");
  expect_line(error_of(gz.substr(0, 2), "bad.json.gz"), {"gzip"}, "bad.json.gz");
  std::string corrupt = gz;
  for (std::size_t i = 12; i < corrupt.size() - 8; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  expect_line(error_of(corrupt, "bad.json.gz"), {"gzip"}, "bad.json.gz");
}

TEST(BadInput, InflatedBlanksCostNoMemory) {
  std::string big(std::string(kGood).substr(0, kGood.size() - 2));
  big += std::string(48 << 20, ' ') + "]}";  // 48 MiB of blanks compress to almost nothing
  const std::string gz = test::gzip_bytes(big);
  ASSERT_LT(gz.size(), 64u << 10);
  ReadStats stats;
  ReadOptions options;
  options.stats = &stats;
  Expected<Trace> t = read_trace_from_memory(gz, "blanks.json.gz", options);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->event_count(), 2u);
  EXPECT_EQ(stats.json_bytes, big.size());
  EXPECT_LE(stats.peak_buffered_bytes, 24u << 20);
}

TEST(BadInput, BinaryGarbage) {
  std::mt19937 rng(1234);
  std::string garbage(4096, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  garbage[0] = '\x07';
  expect_line(error_of(garbage), {"byte 0", "not a JSON trace"});
  garbage[0] = '{';
  expect_line(error_of(garbage), {"byte "});
  garbage[0] = '[';
  expect_line(error_of(garbage), {"event 0"});
  garbage[0] = '\x1f';
  garbage[1] = '\x8b';
  expect_line(error_of(garbage), {"gzip"});
}

TEST(BadInput, WrongTypes) {
  expect_line(error_of(R"({"traceEvents": [{"ph": "X", "ts": "abc", "dur": 1}]})"),
              {"event 0", "byte 17", "'ts' is not a number"});
  expect_line(error_of(R"({"traceEvents": {"ph": "X"}})"), {"byte 16", "'traceEvents' is not an array"});
  expect_line(error_of(R"([{"ph": "X", "ts": 1, "dur": 1}, {"ph": "X", "ts": 1, "dur": 1, "pid": [1]}])"),
              {"event 1", "'pid' is not a number or string"});
  expect_line(error_of(R"([{"ph": 5}])"), {"event 0", "'ph' is not a string"});
  expect_line(error_of(R"([1, 2])"), {"event 0", "not an object"});
  expect_line(error_of(R"({"traceEvents": [], "baseTimeNanoseconds": "soon"})"), {"baseTimeNanoseconds"});
  expect_line(error_of(R"({"traceEvents": [], "deviceProperties": 3})"), {"deviceProperties"});
  expect_line(error_of(R"({"notTraceEvents": []})"), {"no 'traceEvents'"});
  expect_line(error_of(R"({"traceEvents": []} trailing)"), {"byte 20", "after the end"});
}

TEST(BadInput, MissingFields) {
  expect_line(error_of(R"([{"ph": "X", "name": "a", "dur": 1}])"), {"event 0", "byte 1", "without 'ts'"});
  expect_line(error_of(R"([{"ph": "X", "ts": 1, "dur": 1}, {"ph": "X", "ts": 3}])"),
              {"event 1", "byte 33", "without 'dur'"});
  expect_line(error_of(R"([{"ph": "C", "name": "c"}])"), {"event 0", "without 'ts'"});
}

TEST(BadInput, NegativeDurations) {
  expect_line(error_of(R"([{"ph": "X", "ts": 1, "dur": -0.5}])"), {"event 0", "negative duration -500 ns"});
  expect_line(error_of(R"([{"ph": "B", "ts": 10, "pid": 1, "tid": 1}, {"ph": "E", "ts": 5, "pid": 1, "tid": 1}])"),
              {"event 1", "negative duration"});
}

TEST(BadInput, DeepNesting) {
  const std::string deep(100'000, '[');
  expect_line(error_of(deep), {"nesting deeper than 1024"});
  expect_line(error_of(R"({"traceEvents": [)" + deep), {"event 0", "nesting deeper than 1024"});
  expect_line(error_of(R"({"other": )" + deep), {"nesting deeper than 1024"});
  // A deep but balanced value inside args that gtv does not read is skipped without recursion.
  const std::string balanced = std::string(100'000, '[') + std::string(100'000, ']');
  Expected<Trace> t =
      read_trace_from_memory(R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": 1, "args": )" + balanced + "}]}", "x");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->event_count(), 1u);
}

TEST(BadInput, HundredMegabyteString) {
  const std::string huge(100u << 20, 'a');
  // As an event name: one event may not exceed 64 MiB.
  const std::string in_event = R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": 1, "name": ")" + huge + "\"}]}";
  expect_line(error_of(in_event), {"event 0", "byte 17", "larger than 64 MiB"});
  // Unterminated.
  expect_line(error_of(R"({"traceName": ")" + huge), {"byte 14", "unterminated string"});
  // As an unused top-level value it is skipped without being copied.
  Expected<Trace> t = read_trace_from_memory(
      R"({"traceName": ")" + huge + R"(", "traceEvents": [)" + R"({"ph": "X", "ts": 1, "dur": 1}]})", "big.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->event_count(), 1u);
}

TEST(BadInput, RandomByteFlipsNeverCrash) {
  // A multi-event trace with every phase; each run flips a few bytes. Whatever happens must be a trace or one
  // line naming the file (the ASan/UBSan build checks the memory side).
  std::string good = R"({"baseTimeNanoseconds": 5, "deviceProperties": [{"id": 0, "name": "GPU"}], "traceEvents": [)";
  for (int i = 0; i < 200; ++i) {
    good += std::string(i ? "," : "") + R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )" +
            std::to_string(i * 10) + R"(.5, "dur": 1, "args": {"grid": [1, 2, 3], "correlation": )" +
            std::to_string(i) + R"(}}, {"ph": "B", "pid": 1, "tid": 1, "ts": )" + std::to_string(i * 10) +
            R"(}, {"ph": "E", "pid": 1, "tid": 1, "ts": )" + std::to_string(i * 10 + 5) +
            R"(}, {"ph": "C", "name": "c", "pid": 1, "ts": 1, "args": {"v": 1.5}})";
  }
  good += "]}";
  ASSERT_TRUE(read_trace_from_memory(good, "fuzz.json").ok());
  std::mt19937 rng(42);
  // A string literal would stop at the NUL byte: the alphabet's last two bytes need the explicit size.
  constexpr char kAlphabetBytes[] = "{}[],:\"\\ 0123456789.-eE\x00\xff";
  const std::string alphabet(kAlphabetBytes, sizeof(kAlphabetBytes) - 1);
  for (int run = 0; run < 300; ++run) {
    std::string text = good;
    for (int flips = 0; flips < 3; ++flips) text[rng() % text.size()] = alphabet[rng() % alphabet.size()];
    Expected<Trace> t = read_trace_from_memory(text, "fuzz.json");
    if (!t.ok()) expect_line(t.error().message, {}, "fuzz.json");
  }
}

TEST(BadInput, FileOfExactlyOnePage) {
  // No readable bytes after the mapping: the last chunk is parsed from a copy instead of in place.
  std::string text(kGood);
  text.insert(text.size() - 2, std::string(4096 - text.size(), ' '));
  ASSERT_EQ(text.size(), 4096u);
  const std::string path = test::scratch_dir("one_page") + "/page.json";
  test::write_file(path, text);
  Expected<Trace> t = read_trace(path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->event_count(), 2u);
}

TEST(BadInput, IdsBeyondInt64AreKeptAsText) {
  Expected<Trace> t = read_trace_from_memory(
      R"([{"ph": "X", "cat": "cuda_runtime", "ts": 1, "dur": 1, "pid": 1, "tid": 18446744073709551615},)"
      R"( {"ph": "s", "cat": "ac2g", "id": 18446744073709551615, "ts": 1, "pid": 1, "tid": 18446744073709551615},)"
      R"( {"ph": "f", "cat": "ac2g", "id": 18446744073709551615, "ts": 5, "pid": 0, "tid": 7, "bp": "e"},)"
      R"( {"ph": "X", "cat": "kernel", "ts": 5, "dur": 1, "pid": 0, "tid": 7}])",
      "ids.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->lanes().size(), 2u);
  EXPECT_EQ(t->lanes()[0].name, "18446744073709551615");
  EXPECT_EQ(t->flows().size(), 1u);
}

TEST(BadInput, UnknownPhasesAreSkippedAndCounted) {
  ReadStats stats;
  ReadOptions options;
  options.stats = &stats;
  Expected<Trace> t = read_trace_from_memory(
      R"([{"ph": "X", "ts": 1, "dur": 1}, {"ph": "O", "ts": 2}, {"ph": "XX"}, {"name": "no phase"}])", "skip.json",
      options);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->event_count(), 1u);
  EXPECT_EQ(stats.events_skipped, 3u);
  EXPECT_EQ(stats.skipped["events with unknown phase"], 2u);
  EXPECT_EQ(stats.skipped["events without 'ph'"], 1u);
  EXPECT_EQ(t->metadata().notes, (std::vector<std::string>{"reader skipped 2 events with unknown phase",
                                                           "reader skipped 1 events without 'ph'"}));
}

}  // namespace
}  // namespace gtv::io
