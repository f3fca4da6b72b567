#include "gtv/collect/thread_id.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <future>

namespace gtv::collect {
namespace {

TEST(ThreadId, IdsAreTheOsIds) {
  EXPECT_EQ(current_pid(), static_cast<std::int64_t>(::getpid()));
  EXPECT_EQ(current_tid(), static_cast<std::int64_t>(::syscall(SYS_gettid)));
  const std::int64_t other = std::async(std::launch::async, [] { return current_tid(); }).get();
  EXPECT_NE(other, current_tid());
}

TEST(ThreadId, CuptiThreadIdsMapBackToOsTids) {
  register_current_thread();
  const auto tid = current_tid();
  EXPECT_EQ(os_tid_from_cupti(static_cast<std::uint32_t>(tid)), tid);
  const auto pthread_low = static_cast<std::uint32_t>(static_cast<std::uint64_t>(::pthread_self()));
  EXPECT_EQ(os_tid_from_cupti(pthread_low), tid);
  // A thread that never registered keeps CUPTI's id.
  auto [other_tid, other_pthread_low] = std::async(std::launch::async, [] {
    return std::make_pair(current_tid(), static_cast<std::uint32_t>(static_cast<std::uint64_t>(::pthread_self())));
  }).get();
  ASSERT_NE(other_pthread_low, pthread_low);
  ASSERT_NE(static_cast<std::int64_t>(other_pthread_low), tid);
  EXPECT_EQ(os_tid_from_cupti(other_pthread_low), static_cast<std::int64_t>(other_pthread_low));
  EXPECT_NE(os_tid_from_cupti(other_pthread_low), other_tid);
}

TEST(ThreadId, ThreadNameIsTheOsName) {
  const std::string name = std::async(std::launch::async, [] {
    ::pthread_setname_np(::pthread_self(), "gtv-worker");
    return current_thread_name();
  }).get();
  EXPECT_EQ(name, "gtv-worker");
}

}  // namespace
}  // namespace gtv::collect
