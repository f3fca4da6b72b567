#include "runner_launch.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "gtv/base/install_layout.h"

namespace gtv::cli {

Runner find_runner() {
  Runner runner{gtv::runner_executable(), false};
  std::error_code ec;
  runner.available = std::filesystem::is_regular_file(runner.path, ec) && ::access(runner.path.c_str(), X_OK) == 0;
  return runner;
}

std::string missing_runner_message(const Runner& runner) {
  return "this gtv was built or installed without the experiment runner gtv-run (LibTorch), so it cannot run "
         "experiments: no executable " +
         runner.path.string() + "; build with -DGTV_WITH_TORCH=ON (see scripts/build-cuda) or set GTV_RUN to a gtv-run";
}

std::string exec_runner(const Runner& runner, const std::string& program_name, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 2);
  argv.push_back(const_cast<char*>(program_name.c_str()));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execv(runner.path.c_str(), argv.data());
  const int error = errno;
  return "cannot start the experiment runner " + runner.path.string() + ": " + std::strerror(error);
}

}  // namespace gtv::cli
