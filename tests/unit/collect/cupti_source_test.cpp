// CuptiSource on a machine that may have no GPU: start() must answer with a Status, never crash, and stop()
// must be harmless whatever start() did. On a GPU machine start() succeeds and records nothing here (no work).
#include "gtv/collect/cupti_source.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "cupti_calls.h"
#include "gtv/collect/trace_recorder.h"

namespace gtv::collect {
namespace {

TEST(CuptiSource, StartEitherSucceedsOrExplainsWhyInOneLine) {
  TraceRecorder recorder;
  CuptiSource source;
  Status started = source.start(CuptiOptions{}, recorder);
  if (started) {
    EXPECT_TRUE(source.started());
    EXPECT_TRUE(source.stop().ok());
  } else {
    const std::string& message = started.error().message;
    EXPECT_FALSE(message.empty());
    const bool names_cause = message.find("CUPTI") != std::string::npos || message.find("CUDA") != std::string::npos;
    EXPECT_TRUE(names_cause) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_FALSE(source.started());
    EXPECT_TRUE(source.stop().ok());  // stop after a failed start does nothing
    EXPECT_EQ(source.records_delivered(), 0u);
  }
  EXPECT_TRUE(source.stop().ok());  // and twice is fine
  EXPECT_TRUE(recorder.finish().ok());
}

TEST(CuptiSource, StartOrNoteLeavesANoteWhenCuptiIsUnavailable) {
  TraceRecorder recorder;
  CuptiSource source;
  const bool tracing = start_or_note(source, CuptiOptions{}, recorder);
  EXPECT_EQ(tracing, source.started());
  EXPECT_TRUE(source.stop().ok());
  Expected<Trace> trace = recorder.finish();
  ASSERT_TRUE(trace.ok());
  const auto& notes = trace->metadata().notes;
  const bool noted = !notes.empty() && notes[0].rfind("CUPTI unavailable: ", 0) == 0 &&
                     notes[0].find("ran untraced") != std::string::npos;
  EXPECT_EQ(noted, !tracing);
}

TEST(CuptiSource, StopWithoutStartIsHarmless) {
  CuptiSource source;
  EXPECT_TRUE(source.stop().ok());
  EXPECT_FALSE(source.started());
  EXPECT_EQ(source.records_dropped(), 0u);
}

TEST(CuptiSource, OnlyOneSourceAtATime) {
  TraceRecorder recorder;
  CuptiSource first, second;
  if (!first.start(CuptiOptions{}, recorder)) GTEST_SKIP() << "CUPTI unavailable here";
  Status again = second.start(CuptiOptions{}, recorder);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("already started"), std::string::npos);
  EXPECT_TRUE(first.stop().ok());
}

TEST(CuptiSource, FailureMessagesNameTheCallTheErrorAndTheLikelyCause) {
  const std::string busy = cupti::describe_failure("cuptiSubscribe", CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  EXPECT_EQ(busy.rfind("cuptiSubscribe failed: ", 0), 0u) << busy;
  EXPECT_NE(busy.find("another profiler holds CUPTI"), std::string::npos) << busy;
  const std::string unknown = cupti::describe_failure("cuptiSubscribe", CUPTI_ERROR_UNKNOWN);
  EXPECT_EQ(unknown, "cuptiSubscribe failed: CUPTI_ERROR_UNKNOWN (no usable GPU, or another profiler holds CUPTI?)");
  const std::string no_gpu = cupti::describe_failure("cuptiActivityEnable(RUNTIME)", CUPTI_ERROR_NOT_INITIALIZED);
  EXPECT_NE(no_gpu.find("no usable GPU or CUDA driver"), std::string::npos) << no_gpu;
}

TEST(CuptiSource, MachineInfoNeverFailsAndSaysWhetherADriverIsThere) {
  const auto info = cuda_machine_info();
  const bool no_driver = info.contains("cuda_driver") && info.at("cuda_driver") == "not found";
  EXPECT_TRUE(no_driver || info.contains("cuda_driver_version"));
  if (info.contains("gpu_count")) {
    const int count = std::stoi(info.at("gpu_count"));
    for (int i = 0; i < count; ++i) EXPECT_TRUE(info.contains("gpu" + std::to_string(i)));
  }
}

}  // namespace
}  // namespace gtv::collect

namespace gtv::collect {
namespace {

TEST(CuptiSource, NvtxInjectionPointsAtTheLoadedCuptiUnlessAlreadySet) {
  ::unsetenv("NVTX_INJECTION64_PATH");
  const std::string note = cupti::inject_nvtx();
  const char* path = std::getenv("NVTX_INJECTION64_PATH");
  ASSERT_NE(path, nullptr) << note;
  EXPECT_NE(std::string(path).find("libcupti.so"), std::string::npos) << path;
  EXPECT_EQ(note.rfind(std::string("NVTX injection set to ") + path, 0), 0u) << note;
  ::setenv("NVTX_INJECTION64_PATH", "/elsewhere/libinjection.so", 1);
  EXPECT_EQ(cupti::inject_nvtx(), "NVTX injection already set to /elsewhere/libinjection.so");
  EXPECT_STREQ(std::getenv("NVTX_INJECTION64_PATH"), "/elsewhere/libinjection.so");
  ::unsetenv("NVTX_INJECTION64_PATH");
}

}  // namespace
}  // namespace gtv::collect
