#include "gtv/base/install_layout.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "gtv/config.h"

namespace {

namespace fs = std::filesystem;

// Sets an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value != nullptr)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(InstallLayout, ExecutableDirIsThisTestsFolder) {
  const fs::path dir = gtv::executable_dir();
  ASSERT_FALSE(dir.empty());
  EXPECT_TRUE(fs::exists(dir / "gtv_base_tests"));
}

TEST(InstallLayout, BuildTreeFindsTheSourceResources) {
  ScopedEnv no_data("GTV_DATA_DIR", nullptr);
  ScopedEnv no_run("GTV_RUN", nullptr);
  // The test runs from the build tree, where no share/gtv sits next to a bin/.
  EXPECT_EQ(gtv::data_dir(), fs::path(GTV_SOURCE_DIR) / "resources");
  EXPECT_TRUE(fs::exists(gtv::data_dir() / "scenarios"));
  EXPECT_EQ(gtv::runner_executable(), fs::path(GTV_BUILD_DIR) / "app" / "run" / "gtv-run");
  ScopedEnv no_inject("GTV_INJECT", nullptr);
  EXPECT_EQ(gtv::injection_library(), fs::path(GTV_BUILD_DIR) / "core" / "collect" / "cupti" / "libgtv-inject.so");
  ScopedEnv no_cli("GTV_CLI", nullptr);
  EXPECT_EQ(gtv::cli_executable(), fs::path(GTV_BUILD_DIR) / "app" / "cli" / "gtv-cli");
}

TEST(InstallLayout, EnvironmentWins) {
  ScopedEnv data("GTV_DATA_DIR", "/opt/somewhere/share/gtv");
  ScopedEnv run("GTV_RUN", "/opt/somewhere/gtv-run");
  EXPECT_EQ(gtv::data_dir(), fs::path("/opt/somewhere/share/gtv"));
  EXPECT_EQ(gtv::runner_executable(), fs::path("/opt/somewhere/gtv-run"));
  ScopedEnv inject("GTV_INJECT", "/opt/somewhere/libgtv-inject.so");
  EXPECT_EQ(gtv::injection_library(), fs::path("/opt/somewhere/libgtv-inject.so"));
  ScopedEnv cli("GTV_CLI", "/opt/somewhere/gtv-cli");
  EXPECT_EQ(gtv::cli_executable(), fs::path("/opt/somewhere/gtv-cli"));
}

TEST(InstallLayout, RelativePathsMatchAnInstalledTree) {
  // bin/ -> share/gtv and libexec/gtv under one prefix, whatever the prefix is.
  const fs::path bin = "/prefix/bin";
  EXPECT_EQ((bin / GTV_BIN_TO_DATA_DIR).lexically_normal(), fs::path("/prefix/share/gtv"));
  EXPECT_EQ((bin / GTV_BIN_TO_LIBEXEC_DIR).lexically_normal(), fs::path("/prefix/libexec/gtv"));
}

}  // namespace
