#include "output/temp_files.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

namespace gtv::io {
namespace {

// A fixed table, because the signal handler may only read memory and call async-signal-safe functions.
enum SlotState : int { Free = 0, Busy = 1, Ready = 2 };

struct Slot {
  std::atomic<int> state{Free};
  char path[PATH_MAX] = {};
};

constexpr std::size_t kSlots = 32;  // writes at once; more are simply not cleaned up on a signal
std::array<Slot, kSlots> g_slots;
constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> g_defer_depth{0};      // DeferCleanupSignals alive
std::atomic<int> g_deferred_signal{0};  // the first signal that arrived meanwhile

void remove_and_die(int sig) {
  if (g_defer_depth.load(std::memory_order_acquire) > 0) {
    int none = 0;
    g_deferred_signal.compare_exchange_strong(none, sig, std::memory_order_acq_rel);
    // The deferring step may have ended meanwhile without seeing the signal: then it is acted on here.
    if (g_defer_depth.load(std::memory_order_acquire) > 0 || g_deferred_signal.exchange(0) == 0) return;
  }
  for (Slot& slot : g_slots)
    if (slot.state.load(std::memory_order_acquire) == Ready) ::unlink(slot.path);
  // The signal is blocked while its handler runs: with the default disposition back, it ends the process as soon
  // as the handler returns, so the parent sees the signal, not an exit code.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  for (const int sig : kSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0) continue;
    if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = remove_and_die;
    sigemptyset(&action.sa_mask);
    for (const int other : kSignals) sigaddset(&action.sa_mask, other);  // one cleanup at a time
    ::sigaction(sig, &action, nullptr);
  }
  struct sigaction old {};
  if (::sigaction(SIGXFSZ, nullptr, &old) == 0 && (old.sa_flags & SA_SIGINFO) == 0 && old.sa_handler == SIG_DFL)
    ::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace

void install_write_signal_handlers() {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
}

void register_temp_file(const std::string& path) {
  install_write_signal_handlers();
  if (path.size() >= PATH_MAX) return;
  for (Slot& slot : g_slots) {
    int expected = Free;
    if (!slot.state.compare_exchange_strong(expected, Busy, std::memory_order_acq_rel)) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.state.store(Ready, std::memory_order_release);
    return;
  }
}

CleanupSignalsHeld::CleanupSignalsHeld() {
  sigset_t held;
  sigemptyset(&held);
  for (const int sig : kSignals) sigaddset(&held, sig);
  ::pthread_sigmask(SIG_BLOCK, &held, &previous_);
}

CleanupSignalsHeld::~CleanupSignalsHeld() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

DeferCleanupSignals::DeferCleanupSignals() { g_defer_depth.fetch_add(1, std::memory_order_acq_rel); }

DeferCleanupSignals::~DeferCleanupSignals() {
  if (g_defer_depth.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  const int sig = g_deferred_signal.exchange(0, std::memory_order_acq_rel);
  if (sig != 0) remove_and_die(sig);
}

void unregister_temp_file(const std::string& path) {
  for (Slot& slot : g_slots) {
    int expected = Ready;
    if (!slot.state.compare_exchange_strong(expected, Busy, std::memory_order_acq_rel)) continue;
    if (path == slot.path) {
      slot.state.store(Free, std::memory_order_release);
      return;
    }
    slot.state.store(Ready, std::memory_order_release);
  }
}

}  // namespace gtv::io
