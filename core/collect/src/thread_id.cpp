#include "gtv/collect/thread_id.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>
#include <vector>

namespace gtv::collect {
namespace {

struct KnownThread {
  std::int64_t os_tid;
  std::uint64_t pthread_id;
};

struct Registry {
  std::mutex mutex;
  std::vector<KnownThread> threads;  // few threads register; a linear scan is fine
};

Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

std::int64_t current_pid() { return static_cast<std::int64_t>(::getpid()); }

std::int64_t current_tid() {
  thread_local const std::int64_t tid = static_cast<std::int64_t>(::syscall(SYS_gettid));
  return tid;
}

void register_current_thread() {
  thread_local bool registered = false;
  if (registered) return;
  const KnownThread self{current_tid(), static_cast<std::uint64_t>(::pthread_self())};
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  // Ids of ended threads are reused by new ones (pthread ids quickly, tids rarely): the newest thread wins.
  // Entries are kept after a thread ends, because its CUPTI records are often flushed only at the end.
  std::erase_if(r.threads,
                [&](const KnownThread& t) { return t.os_tid == self.os_tid || t.pthread_id == self.pthread_id; });
  r.threads.push_back(self);
  registered = true;
}

std::int64_t os_tid_from_cupti(std::uint32_t cupti_thread_id) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const KnownThread& t : r.threads)
    if (t.os_tid == static_cast<std::int64_t>(cupti_thread_id)) return t.os_tid;
  for (const KnownThread& t : r.threads)
    if (static_cast<std::uint32_t>(t.pthread_id) == cupti_thread_id) return t.os_tid;
  return static_cast<std::int64_t>(cupti_thread_id);
}

std::string current_thread_name() {
  char name[64] = {};
  if (::pthread_getname_np(::pthread_self(), name, sizeof name) != 0) return {};
  return name;
}

}  // namespace gtv::collect
