#include "record_child.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern char** environ;  // NOLINT(readability-identifier-naming): the POSIX name

namespace gtv::cli {
namespace {

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// SIGINT and SIGQUIT ignored in this process while the child runs; the child gets the default handling back.
class IgnoreTerminalSignals {
 public:
  IgnoreTerminalSignals() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGINT, &ignore, &old_int_);
    ::sigaction(SIGQUIT, &ignore, &old_quit_);
  }
  ~IgnoreTerminalSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGQUIT, &old_quit_, nullptr);
  }
  IgnoreTerminalSignals(const IgnoreTerminalSignals&) = delete;
  IgnoreTerminalSignals& operator=(const IgnoreTerminalSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_quit_ {};
};

}  // namespace

std::vector<std::string> child_environment(const std::vector<std::string>& drop,
                                           const std::vector<std::pair<std::string, std::string>>& add) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    const bool dropped = std::find(drop.begin(), drop.end(), name) != drop.end() ||
                         std::any_of(add.begin(), add.end(), [&](const auto& kv) { return kv.first == name; });
    if (!dropped) env.push_back(entry);
  }
  for (const auto& [name, value] : add) {
    std::string entry = name;
    entry += '=';
    entry += value;
    env.push_back(std::move(entry));
  }
  return env;
}

Expected<ChildExit> run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  if (argv.empty()) return Error{"no program to run"};
  std::vector<char*> args = c_strings(argv);
  std::vector<char*> envp = c_strings(env);
  posix_spawnattr_t attributes;
  ::posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  ::posix_spawnattr_setsigdefault(&attributes, &defaults);
  ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  const IgnoreTerminalSignals ignoring;
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, args[0], nullptr, &attributes, args.data(), envp.data());
  ::posix_spawnattr_destroy(&attributes);
  if (spawned != 0) return Error{"cannot start " + argv[0] + ": " + std::strerror(spawned)};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Error{std::string("waiting for the program failed: ") + std::strerror(errno)};
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return ChildExit{128 + sig, "killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")"};
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  return ChildExit{code, "exit code " + std::to_string(code)};
}

}  // namespace gtv::cli
