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
  // An id that is neither a registered tid nor a registered pthread id (glibc's pthread ids are aligned
  // addresses, never odd) is kept as CUPTI gave it.
  EXPECT_EQ(os_tid_from_cupti(0xfffffff7u), 0xfffffff7ll);
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
