#pragma once
// Running the program gtv-cli record records: a child process with its own environment, waited for while the
// terminal's Ctrl-C and Ctrl-\ go to it (as system() does), so gtv-cli is still there to collect its files.
#include <string>
#include <vector>

#include "gtv/base/expected.h"

namespace gtv::cli {

struct ChildExit {
  int exit_code = 0;        // the child's exit status, or 128 + signal when a signal ended it (as shells report)
  std::string description;  // "exit code 3", "killed by signal 9 (Killed)"
};

// Starts argv[0] (searched in PATH when it has no '/') with exactly env, and waits for it. An Error (one line, with
// the system's reason) when it cannot be started; ChildExit otherwise, whatever the child did.
[[nodiscard]] Expected<ChildExit> run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env);

// This process's environment without the variables named in drop, then add (NAME=value each).
[[nodiscard]] std::vector<std::string> child_environment(const std::vector<std::string>& drop,
                                                         const std::vector<std::pair<std::string, std::string>>& add);

}  // namespace gtv::cli
