// write_output_file: bytes drawn in memory (the GUI's pictures) reach the path by the rules of every file gtv writes.
#include "gtv/io/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "fifo_drain.h"
#include "gtv/io/trace_file.h"
#include "test_util.h"

namespace gtv::io {
namespace {

using gtv::test::drain_fifo;
using gtv::test::kNobody;

// A fresh folder under /tmp that every user may look into (the read-only case runs as nobody), removed afterwards.
class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = "/tmp/gtv-output-file-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::permissions(path("readonly"), std::filesystem::perms::owner_all, ignored);
    std::filesystem::remove_all(dir_, ignored);
  }
  [[nodiscard]] std::string path(const std::string& name) const { return dir_ + "/" + name; }
  // Every name in the folder, hidden ones included, sorted.
  [[nodiscard]] std::vector<std::string> entries(const std::string& folder) const {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(folder.c_str())) {
      while (const dirent* e = ::readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.emplace_back(e->d_name);
      ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  std::string dir_;
};

mode_t mode_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

TEST_F(OutputFileTest, NewFileHonoursTheUmaskAndReplacedFileKeepsItsMode) {
  const mode_t previous = ::umask(027);
  const Status fresh = write_output_file(path("fresh.png"), "new");
  ::umask(previous);
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  EXPECT_EQ(mode_of(path("fresh.png")), mode_t{0640});
  test::write_file(path("private.png"), "old");
  ASSERT_EQ(::chmod(path("private.png").c_str(), 0600), 0);
  ASSERT_TRUE(write_output_file(path("private.png"), "new").ok());
  EXPECT_EQ(test::read_file(path("private.png")), "new");
  EXPECT_EQ(mode_of(path("private.png")), mode_t{0600});
  EXPECT_EQ(entries(dir_), (std::vector<std::string>{"fresh.png", "private.png"}));
}

TEST_F(OutputFileTest, SymlinkStaysALinkAndItsTargetIsWritten) {
  ASSERT_EQ(::mkdir(path("real").c_str(), 0755), 0);
  test::write_file(path("real/target.svg"), "old");
  ASSERT_EQ(::symlink("real/target.svg", path("link.svg").c_str()), 0);
  const Status status = write_output_file(path("link.svg"), "<svg/>");
  ASSERT_TRUE(status.ok()) << status.error().message;
  struct stat st {};
  ASSERT_EQ(::lstat(path("link.svg").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(test::read_file(path("real/target.svg")), "<svg/>");
  EXPECT_EQ(entries(path("real")), std::vector<std::string>{"target.svg"});
}

TEST_F(OutputFileTest, FifoIsStreamedIntoAndStaysAFifo) {
  const std::string fifo = path("pipe.png");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The read end is held here, so the test ends even should the write replace the FIFO's name.
  const int held = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(held, 0);
  std::string received;
  std::thread reader([&] { received = drain_fifo(held); });
  const std::string bytes(100000, 'x');
  const Status status = write_output_file(fifo, bytes);
  // A writer that comes and goes ends the reader had the write never opened the FIFO.
  const std::string held_path = "/proc/self/fd/" + std::to_string(held);
  if (const int fd = ::open(held_path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC); fd >= 0) ::close(fd);
  reader.join();
  ::close(held);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(received, bytes);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(dir_), std::vector<std::string>{"pipe.png"});
}

TEST_F(OutputFileTest, HardLinkedFileIsWrittenInPlace) {
  test::write_file(path("first.png"), "old");
  ASSERT_EQ(::link(path("first.png").c_str(), path("second.png").c_str()), 0);
  ASSERT_TRUE(write_output_file(path("first.png"), "new").ok());
  EXPECT_EQ(test::read_file(path("second.png")), "new");
  EXPECT_EQ(entries(dir_), (std::vector<std::string>{"first.png", "second.png"}));
}

TEST_F(OutputFileTest, DirectoryIsRefusedWithOneLine) {
  ASSERT_EQ(::mkdir(path("folder.png").c_str(), 0755), 0);
  const Status status = write_output_file(path("folder.png"), "x");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, path("folder.png") + ": is a directory; give a file name to write");
  EXPECT_TRUE(entries(path("folder.png")).empty());
  EXPECT_EQ(entries(dir_), std::vector<std::string>{"folder.png"});
}

// Permission bits bind root only through another user: the write runs in a child that is nobody when the test
// runs as root.
TEST_F(OutputFileTest, ReadOnlyFolderIsRefusedAndLeftEmpty) {
  const std::string folder = path("readonly");
  ASSERT_EQ(::mkdir(folder.c_str(), 0555), 0);
  ASSERT_EQ(::chmod(folder.c_str(), 0555), 0);  // whatever the umask
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    if (::geteuid() == 0 && (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)) ::_exit(2);
    const Status status = write_output_file(folder + "/out.png", "x");
    const std::string message = status.ok() ? std::string() : status.error().message;
    (void)!::write(pipe_fds[1], message.data(), message.size());
    ::_exit(status.ok() ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[1024];
  ssize_t n = 0;
  while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) message.append(buffer, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  int wstatus = 0;
  ASSERT_EQ(::waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFEXITED(wstatus));
  EXPECT_EQ(WEXITSTATUS(wstatus), 1) << "the write was not refused";
  EXPECT_EQ(message.rfind(folder + "/out.png: cannot create a temporary file in " + folder + ": ", 0), 0u) << message;
  EXPECT_NE(message.find("Permission denied"), std::string::npos) << message;
  EXPECT_TRUE(entries(folder).empty());
}

// A write that fails half way (a file size limit here, a full disk elsewhere) leaves the file as it was and
// removes its temporary file. The limit is set in a child, so the test process keeps its own.
TEST_F(OutputFileTest, FailedWriteLeavesTheTargetAsItWas) {
  test::write_file(path("keep.png"), "precious");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // the write then fails with EFBIG
    const struct rlimit limit = {4096, 4096};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(2);
    const Status status = write_output_file(path("keep.png"), std::string(100000, 'x'));
    const bool as_documented = !status.ok() &&
                               status.error().message.rfind(path("keep.png") + ": write failed: ", 0) == 0 &&
                               status.error().message.find("is unchanged") != std::string::npos;
    ::_exit(as_documented ? 0 : 1);
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFEXITED(wstatus));
  EXPECT_EQ(WEXITSTATUS(wstatus), 0) << "the write did not fail with a one-line message naming the file";
  EXPECT_EQ(test::read_file(path("keep.png")), "precious");
  EXPECT_EQ(entries(dir_), std::vector<std::string>{"keep.png"});
}

}  // namespace
}  // namespace gtv::io

TEST(RankFilePath, PutsTheRankBeforeTheWholeExtension) {
  EXPECT_EQ(gtv::io::rank_file_path("run.json.gz", 1), "run.rank1.json.gz");
  EXPECT_EQ(gtv::io::rank_file_path("out/run.json", 0), "out/run.rank0.json");
  EXPECT_EQ(gtv::io::rank_file_path("run", 12), "run.rank12");
  EXPECT_EQ(gtv::io::rank_file_path("a.b/run", 3), "a.b/run.rank3");
  EXPECT_EQ(gtv::io::rank_file_path(".hidden.json", 2), ".hidden.rank2.json");
}
