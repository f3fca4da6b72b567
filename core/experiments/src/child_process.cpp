#include "child_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "gtv/experiments/runner.h"

namespace gtv::exp {

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string read_all(int fd) {
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return bytes;
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
}

Expected<std::pair<pid_t, int>> fork_child(int (*run)(void* body, int fd), void* body) {
  int fds[2];
  if (::pipe(fds) != 0) return Error{"cannot create a pipe for a worker process"};
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Error{"cannot start a worker process (fork failed)"};
  }
  if (pid == 0) {
    ::close(fds[0]);
    prepare_forked_child();
    const int code = run(body, fds[1]);
    ::close(fds[1]);
    ::_exit(code);
  }
  ::close(fds[1]);
  return std::pair{pid, fds[0]};
}

int wait_exit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

bool exited_cleanly(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

}  // namespace gtv::exp

namespace gtv::exp {

int probe_gpu_count(bool force_cpu) {
  if (force_cpu) return 0;
  auto child = fork_with_pipe([](int fd) { return write_all(fd, std::to_string(cuda_device_count())) ? 0 : 1; });
  if (!child) return 0;
  const std::string text = read_all(child->second);
  ::close(child->second);
  (void)wait_exit(child->first);
  return text.empty() ? 0 : std::stoi(text);
}

}  // namespace gtv::exp
