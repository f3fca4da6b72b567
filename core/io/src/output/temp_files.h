#pragma once
// Temporary files that must not outlive an interrupted write: while registered, SIGINT, SIGTERM and SIGHUP
// remove them before the process dies of the signal as it would have (exit status "killed by signal"). SIGXFSZ
// (a write past `ulimit -f`) is ignored once a temporary file was registered, so such a write fails with EFBIG
// and is reported ("File too large") instead of killing the process with the temporary file left behind.
#include <signal.h>

#include <string>

namespace gtv::io {

// Installs the handlers below (once); called before anything is written, temporary file or not.
void install_write_signal_handlers();
// Registers path; the first call installs the handlers for the signals whose disposition is still the default
// (an ignored SIGHUP under nohup stays ignored; a program's own handler stays in place).
void register_temp_file(const std::string& path);
// After the file was renamed into place or removed.
void unregister_temp_file(const std::string& path);

// Holds SIGINT, SIGTERM and SIGHUP back in this thread while alive, so one that arrives between creating a temporary
// file and registering it is handled after the registration and still removes the file.
class CleanupSignalsHeld {
 public:
  CleanupSignalsHeld();
  ~CleanupSignalsHeld();
  CleanupSignalsHeld(const CleanupSignalsHeld&) = delete;
  CleanupSignalsHeld& operator=(const CleanupSignalsHeld&) = delete;

 private:
  sigset_t previous_{};
};

// While alive (in any thread), SIGINT, SIGTERM and SIGHUP do not end the process: the first one is remembered and
// acted on (temporary files removed, process ended by it) when the last DeferCleanupSignals ends. For a step that
// must not stop half way, such as copying the complete output into a hard-linked file in place. Unlike
// CleanupSignalsHeld, this also covers signals the kernel hands to another thread of the process.
class DeferCleanupSignals {
 public:
  DeferCleanupSignals();
  ~DeferCleanupSignals();
  DeferCleanupSignals(const DeferCleanupSignals&) = delete;
  DeferCleanupSignals& operator=(const DeferCleanupSignals&) = delete;
};

}  // namespace gtv::io
