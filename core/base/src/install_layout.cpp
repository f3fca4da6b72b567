#include "gtv/base/install_layout.h"

#include <cstdlib>
#include <system_error>

#include "gtv/config.h"

namespace gtv {
namespace {

std::filesystem::path from_environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::filesystem::path(value) : std::filesystem::path();
}

// dir_from_bin (relative to the installed bin/) resolved against the executable's folder, when that exists.
std::filesystem::path installed(const char* dir_from_bin, const char* file = nullptr) {
  const std::filesystem::path exe_dir = executable_dir();
  if (exe_dir.empty()) return {};
  std::filesystem::path candidate = (exe_dir / dir_from_bin).lexically_normal();
  if (file != nullptr) candidate /= file;
  std::error_code ec;
  return std::filesystem::exists(candidate, ec) ? candidate : std::filesystem::path();
}

}  // namespace

std::filesystem::path executable_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

std::filesystem::path data_dir() {
  if (auto dir = from_environment("GTV_DATA_DIR"); !dir.empty()) return dir;
  if (auto dir = installed(GTV_BIN_TO_DATA_DIR); !dir.empty()) return dir;
  return std::filesystem::path(GTV_SOURCE_DIR) / "resources";
}

std::filesystem::path runner_executable() {
  if (auto path = from_environment("GTV_RUN"); !path.empty()) return path;
  if (auto path = installed(GTV_BIN_TO_LIBEXEC_DIR, "gtv-run"); !path.empty()) return path;
  return std::filesystem::path(GTV_BUILD_DIR) / "app" / "run" / "gtv-run";
}

std::filesystem::path cli_executable() {
  if (auto path = from_environment("GTV_CLI"); !path.empty()) return path;
  if (auto path = installed(".", "gtv-cli"); !path.empty()) return path;
  return std::filesystem::path(GTV_BUILD_DIR) / "app" / "cli" / "gtv-cli";
}

std::filesystem::path injection_library() {
  if (auto path = from_environment("GTV_INJECT"); !path.empty()) return path;
  if (auto path = installed(GTV_BIN_TO_LIBEXEC_DIR, "libgtv-inject.so"); !path.empty()) return path;
  return std::filesystem::path(GTV_BUILD_DIR) / "core" / "collect" / "cupti" / "libgtv-inject.so";
}

}  // namespace gtv
