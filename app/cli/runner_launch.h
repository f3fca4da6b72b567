#pragma once
// gtv-cli does not run experiments itself: `gtv-cli run` hands its arguments to the runner gtv-run, the one
// program that loads LibTorch and CUPTI, so every other command starts without them.
#include <filesystem>
#include <string>
#include <vector>

namespace gtv::cli {

struct Runner {
  std::filesystem::path path;  // gtv::runner_executable(): $GTV_RUN, installed libexec/gtv/gtv-run, or the build tree's
  bool available = false;      // path is an executable regular file
};

[[nodiscard]] Runner find_runner();

// One line for a missing runner, naming the path looked at.
[[nodiscard]] std::string missing_runner_message(const Runner& runner);

// Replaces this process with the runner: argv[0] is program_name (the runner names itself by it in its
// messages), then args. Returns only when exec failed, with the reason in one line.
[[nodiscard]] std::string exec_runner(const Runner& runner, const std::string& program_name,
                                      const std::vector<std::string>& args);

}  // namespace gtv::cli
