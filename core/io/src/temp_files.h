#pragma once
// Temporary files that must not outlive an interrupted write: while registered, SIGINT, SIGTERM and SIGHUP
// remove them before the process dies of the signal as it would have (exit status "killed by signal").
#include <signal.h>

#include <string>

namespace gtv::io {

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

}  // namespace gtv::io
