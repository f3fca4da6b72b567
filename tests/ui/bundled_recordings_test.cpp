// The GUI finds the bundled recordings in gtv::data_dir(), so an installed gtv lists share/gtv/traces/h200x2
// without the source tree.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <string>

#include "gtv/ui/run_panel.h"

namespace {

// Sets (or with nullptr unsets) an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_ = old;
      had_ = true;
    }
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(BundledRecordings, FoundInTheDataDir) {
  QTemporaryDir data;
  ASSERT_TRUE(data.isValid());
  ASSERT_TRUE(QDir(data.path()).mkpath(QStringLiteral("traces/h200x2")));
  const QString recording = data.path() + QStringLiteral("/traces/h200x2/sequential.json.gz");
  QFile file(recording);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.close();

  ScopedEnv no_override("GTV_RECORDINGS_DIR", nullptr);
  const QByteArray data_path = data.path().toLocal8Bit();
  ScopedEnv data_dir("GTV_DATA_DIR", data_path.constData());
  EXPECT_EQ(gtv::ui::bundled_recordings_dir(), QDir(data.path() + QStringLiteral("/traces/h200x2")).absolutePath());
  EXPECT_EQ(gtv::ui::recording_of(QStringLiteral("sequential")), recording);
  EXPECT_TRUE(gtv::ui::recording_of(QStringLiteral("streams")).isEmpty());
}

TEST(BundledRecordings, NoneWhenTheDataDirHasNone) {
  // The source tree's recordings exist in this checkout; a data dir without traces must not fall back to them.
  QTemporaryDir data;
  ASSERT_TRUE(data.isValid());
  ScopedEnv no_override("GTV_RECORDINGS_DIR", nullptr);
  const QByteArray data_path = data.path().toLocal8Bit();
  ScopedEnv data_dir("GTV_DATA_DIR", data_path.constData());
  EXPECT_TRUE(gtv::ui::bundled_recordings_dir().isEmpty());
  EXPECT_TRUE(gtv::ui::recording_of(QStringLiteral("sequential")).isEmpty());
}

TEST(BundledRecordings, EnvironmentOverrideWins) {
  QTemporaryDir recordings;
  ASSERT_TRUE(recordings.isValid());
  const QByteArray path = recordings.path().toLocal8Bit();
  ScopedEnv override_dir("GTV_RECORDINGS_DIR", path.constData());
  EXPECT_EQ(gtv::ui::bundled_recordings_dir(), QDir(recordings.path()).absolutePath());
}

}  // namespace
