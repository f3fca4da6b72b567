#pragma once
// Worker processes of the multi-process scenarios (`processes`, the ddp scenarios): forked before the parent
// touches CUDA (a CUDA context does not survive fork), each sending its trace back through a pipe.
#include <sys/types.h>

#include <string>
#include <string_view>
#include <utility>

#include "gtv/base/expected.h"

namespace gtv::exp {

// Writes all of bytes to fd (retrying short writes); false when the reader went away.
bool write_all(int fd, std::string_view bytes);
// Everything fd delivers until end of file.
[[nodiscard]] std::string read_all(int fd);

// Runs body(write_fd) in a forked child, which exits with body's return value; returns the child's pid and the
// read end of its pipe.
template <typename Body>
Expected<std::pair<pid_t, int>> fork_with_pipe(Body body);

// waitpid, retried on EINTR; the raw status.
int wait_exit(pid_t pid);
// "exit code 3", "killed by signal 9".
[[nodiscard]] std::string describe_exit(int status);
[[nodiscard]] bool exited_cleanly(int status);

// CUDA GPUs, counted in a forked child so this process never starts CUDA (0 when force_cpu).
[[nodiscard]] int probe_gpu_count(bool force_cpu);

// In a freshly forked child: what LibTorch needs there (torch_engine.cpp).
void prepare_forked_child();

// What fork_with_pipe does around body; split so the template stays small.
Expected<std::pair<pid_t, int>> fork_child(int (*run)(void* body, int fd), void* body);

template <typename Body>
Expected<std::pair<pid_t, int>> fork_with_pipe(Body body) {
  return fork_child([](void* b, int fd) { return (*static_cast<Body*>(b))(fd); }, &body);
}

}  // namespace gtv::exp
