#pragma once
// Where gtv's programs find their data and each other, installed (bin/, share/gtv/, libexec/gtv/ under one prefix,
// found from the running executable, so a moved or unpacked tree still works) or in the build tree.
#include <filesystem>

namespace gtv {

// The folder of the running executable (/proc/self/exe); empty when it cannot be read.
[[nodiscard]] std::filesystem::path executable_dir();

// The folder with the bundled recordings (traces/) and the scenario texts (scenarios/): $GTV_DATA_DIR when set;
// else share/gtv next to an installed executable's bin/ when it exists; else the source tree's resources/.
[[nodiscard]] std::filesystem::path data_dir();

// The program that runs experiments (gtv-run, the only one that loads LibTorch and CUPTI): $GTV_RUN when set; else
// libexec/gtv/gtv-run next to an installed executable's bin/ when it exists; else the build tree's app/run/gtv-run.
[[nodiscard]] std::filesystem::path runner_executable();

// The command-line program gtv-cli (the window records programs with its `record`): $GTV_CLI when set; else gtv-cli
// next to the running executable (both are installed in bin/) when it exists; else the build tree's app/cli/gtv-cli.
[[nodiscard]] std::filesystem::path cli_executable();

// The recorder gtv-cli record injects into programs (libgtv-inject.so, built with CUPTI): $GTV_INJECT when set; else
// libexec/gtv/libgtv-inject.so next to an installed executable's bin/ when it exists; else the build tree's
// core/collect/cupti/libgtv-inject.so.
[[nodiscard]] std::filesystem::path injection_library();

}  // namespace gtv
