// libgtv-inject.so as CUDA and gtv-cli record see it: loaded with dlopen (this test links none of gtv), its two
// entry points found, and InitializeInjection refusing cleanly, in one line and at once, where it cannot record.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Library {
  Library() : handle(::dlopen(GTV_INJECT_PATH, RTLD_NOW | RTLD_LOCAL)) {}
  ~Library() {
    if (handle != nullptr) ::dlclose(handle);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  void* handle;
};

using InitializeFn = int (*)();
using PathFn = const char* (*)();

bool driver_present() {
  void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda != nullptr) ::dlclose(cuda);
  return cuda != nullptr;
}

std::string read_first_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("gtv-inject-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(InjectionLibrary, LoadsAndExportsItsEntryPoints) {
  Library lib;
  ASSERT_NE(lib.handle, nullptr) << ::dlerror();
  EXPECT_NE(::dlsym(lib.handle, "InitializeInjection"), nullptr);
  auto cupti_path = reinterpret_cast<PathFn>(::dlsym(lib.handle, "gtv_injection_cupti_path"));
  ASSERT_NE(cupti_path, nullptr);
  ASSERT_NE(cupti_path(), nullptr);
  EXPECT_NE(std::string(cupti_path()).find("libcupti.so"), std::string::npos) << cupti_path();
  EXPECT_TRUE(fs::exists(cupti_path()));
  // The gtv code inside is hidden: a program's own symbols never meet it.
  EXPECT_EQ(::dlsym(lib.handle, "_ZN3gtv7collect13TraceRecorder6finishEv"), nullptr);
}

TEST(InjectionLibrary, WithoutItsSettingsItRefusesInOneLine) {
  Library lib;
  ASSERT_NE(lib.handle, nullptr) << ::dlerror();
  auto initialize = reinterpret_cast<InitializeFn>(::dlsym(lib.handle, "InitializeInjection"));
  ASSERT_NE(initialize, nullptr);
  ::unsetenv("GTV_RECORD_DIR");
  testing::internal::CaptureStderr();
  EXPECT_EQ(initialize(), 0);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said.rfind("gtv-cli record: pid " + std::to_string(::getpid()), 0), 0u) << said;
  EXPECT_NE(said.find("is not traced: GTV_RECORD_DIR is not set: nowhere to write the trace\n"), std::string::npos)
      << said;
  EXPECT_EQ(said.find('\n'), said.size() - 1) << said;
}

TEST(InjectionLibrary, BadSettingsAreRefusedAndLeftInTheFolder) {
  Library lib;
  ASSERT_NE(lib.handle, nullptr) << ::dlerror();
  auto initialize = reinterpret_cast<InitializeFn>(::dlsym(lib.handle, "InitializeInjection"));
  const fs::path dir = fresh_dir("bad");
  ::setenv("GTV_RECORD_DIR", dir.c_str(), 1);
  ::setenv("GTV_RECORD_MAX_EVENTS", "many", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(initialize(), 0);
  (void)testing::internal::GetCapturedStderr();
  ::unsetenv("GTV_RECORD_MAX_EVENTS");
  const fs::path refused = dir / ("gtv-" + std::to_string(::getpid()) + ".refused");
  ASSERT_TRUE(fs::exists(refused));
  EXPECT_NE(read_first_line(refused).find("GTV_RECORD_MAX_EVENTS='many' is not a whole number"), std::string::npos)
      << read_first_line(refused);
  fs::remove_all(dir);
  ::unsetenv("GTV_RECORD_DIR");
}

// On a machine without a CUDA driver (CUDA itself would never call InitializeInjection there), a direct call says
// so and leaves the reason where gtv-cli record looks; it neither crashes nor waits.
TEST(InjectionLibrary, WithoutADriverItRefusesCleanly) {
  if (driver_present()) GTEST_SKIP() << "a CUDA driver is present: InitializeInjection would start recording";
  Library lib;
  ASSERT_NE(lib.handle, nullptr) << ::dlerror();
  auto initialize = reinterpret_cast<InitializeFn>(::dlsym(lib.handle, "InitializeInjection"));
  const fs::path dir = fresh_dir("nodriver");
  ::setenv("GTV_RECORD_DIR", dir.c_str(), 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(initialize(), 0);
  EXPECT_EQ(initialize(), 0);  // and again: nothing was left half started
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("is not traced: no CUDA driver on this machine (libcuda.so.1 not found)"), std::string::npos)
      << said;
  const fs::path refused = dir / ("gtv-" + std::to_string(::getpid()) + ".refused");
  ASSERT_TRUE(fs::exists(refused));
  EXPECT_NE(read_first_line(refused).find("no CUDA driver"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / ("gtv-" + std::to_string(::getpid()) + ".json")));
  fs::remove_all(dir);
  ::unsetenv("GTV_RECORD_DIR");
}

}  // namespace
