#include "output/file_sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "output/temp_files.h"

namespace gtv::io {
namespace {

std::string random_suffix() {
  static thread_local std::mt19937_64 engine{std::random_device{}() ^ static_cast<std::uint64_t>(::getpid())};
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string s(6, 'x');
  for (char& c : s) c = kChars[engine() % (sizeof kChars - 1)];
  return s;
}

bool write_all(int fd, std::string_view bytes, std::string& error) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? std::strerror(errno) : "nothing written";
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

FileSink::~FileSink() {
  if (gz_ != nullptr)
    gzclose(static_cast<gzFile>(gz_));
  else if (fd_ >= 0)
    ::close(fd_);
  remove_temp();
}

void FileSink::remove_temp() {
  if (temp_path_.empty()) return;
  ::unlink(temp_path_.c_str());
  unregister_temp_file(temp_path_);
  temp_path_.clear();
}

Expected<std::unique_ptr<FileSink>> FileSink::open(const std::string& path, bool gzip) {
  Expected<OutputTarget> target = resolve_output(path);
  if (!target) return target.error();
  install_write_signal_handlers();
  std::unique_ptr<FileSink> sink(new FileSink());
  sink->shown_ = path;
  sink->target_ = std::move(target).value();
  const Status opened = sink->target_.mode == OutputMode::Stream ? sink->open_stream() : sink->open_temp();
  if (!opened) return opened.error();
  if (gzip)
    if (Status s = sink->start_gzip(); !s) return s.error();
  return sink;
}

// Appending: through /dev/stdout onto a file a shell opened with >>, what is there stays; elsewhere it changes nothing.
Status FileSink::open_stream() {
  fd_ = ::open(target_.path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
  if (fd_ < 0) return Error{shown_ + ": cannot open for writing: " + std::strerror(errno)};
  return ok_status();
}

// The temporary file is created with 0666 so the umask applies to a new file, as it would to any program's output.
Status FileSink::open_temp() {
  const std::filesystem::path target(target_.path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const std::string stem = (dir / ("." + target.filename().string() + ".tmp-")).string();
  const CleanupSignalsHeld held;  // until the file is registered
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    std::string candidate = stem + random_suffix();
    fd_ = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0)
      temp_path_ = std::move(candidate);
    else if (errno != EEXIST)
      break;
  }
  if (fd_ < 0)
    return Error{shown_ + ": cannot create a temporary file in " + dir.string() + ": " + std::strerror(errno)};
  register_temp_file(temp_path_);
  if (target_.exists) {
    // Owner first: changing it clears set-user-ID bits, which the mode then restores. Either may be refused to a
    // user who does not own the file; the file is then theirs, as a copy would be. The mode also applies to the
    // temporary file that is only copied into a hard-linked file: it holds the same content meanwhile.
    if (target_.mode == OutputMode::Replace && ::fchown(fd_, target_.existing.st_uid, target_.existing.st_gid) != 0)
      (void)!::fchown(fd_, static_cast<uid_t>(-1), target_.existing.st_gid);
    (void)!::fchmod(fd_, target_.existing.st_mode & 07777);
  }
  return ok_status();
}

Status FileSink::start_gzip() {
  gzFile gz = gzdopen(fd_, "wb6");
  if (gz == nullptr) return Error{shown_ + ": cannot start gzip compression"};
  gzbuffer(gz, 1 << 18);
  gz_ = gz;
  return ok_status();
}

bool FileSink::write(std::string_view bytes) {
  if (!error_.empty()) return false;
  if (gz_ == nullptr) return write_all(fd_, bytes, error_);
  while (!bytes.empty()) {
    const auto n = static_cast<unsigned>(std::min<std::size_t>(bytes.size(), 1u << 30));
    if (gzwrite(static_cast<gzFile>(gz_), bytes.data(), n) != static_cast<int>(n)) {
      int zerr = 0;
      const char* message = gzerror(static_cast<gzFile>(gz_), &zerr);
      error_ = zerr == Z_ERRNO ? std::strerror(errno) : std::string("gzip: ") + message;
      return false;
    }
    bytes.remove_prefix(n);
  }
  return true;
}

Status FileSink::close_output() {
  if (gz_ != nullptr) {
    const int rc = gzclose(static_cast<gzFile>(gz_));  // also closes fd_
    gz_ = nullptr;
    fd_ = -1;
    if (rc == Z_ERRNO) return Error{shown_ + ": write failed: " + std::strerror(errno)};
    if (rc != Z_OK) return Error{shown_ + ": gzip write failed (zlib error " + std::to_string(rc) + ")"};
    return ok_status();
  }
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) return Error{shown_ + ": write failed: " + std::strerror(errno)};
  return ok_status();
}

Status FileSink::commit() {
  const bool failed = !error_.empty();
  Status closed = close_output();
  if (failed)
    return Error{shown_ + ": write failed: " + error_ + (temp_path_.empty() ? "" : "; " + shown_ + " is unchanged")};
  if (!closed) return closed;
  if (target_.mode == OutputMode::Stream) return ok_status();
  if (target_.mode == OutputMode::CopyIntoPlace) return copy_temp_into_target();
  const DeferCleanupSignals deferred;  // a signal between the rename and the unregistering finds no stale name
  if (::rename(temp_path_.c_str(), target_.path.c_str()) != 0)
    return Error{shown_ + ": cannot rename the temporary file into place: " + std::strerror(errno)};
  unregister_temp_file(temp_path_);
  temp_path_.clear();
  return ok_status();
}

// The temporary file holds the only complete copy of the output while OUT is rewritten, so it is taken out of
// the signal cleanup first: nothing deletes it until OUT is complete. SIGINT, SIGTERM and SIGHUP wait until the copy
// is done (OUT is then complete, and the process still ends by the signal). Space is reserved before the first byte
// is overwritten, so a full disk or `ulimit -f` refuses the write while OUT still holds its old content; only a
// failure half way (an I/O error, SIGKILL) leaves OUT cut, and then the complete output stays in the temporary file.
Status FileSink::copy_temp_into_target() {
  const DeferCleanupSignals deferred;
  const std::string kept = temp_path_;
  unregister_temp_file(temp_path_);
  const int in = ::open(kept.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return Error{shown_ + ": cannot reopen the temporary file " + kept + ": " + std::strerror(errno)};
  const int out = ::open(target_.path.c_str(), O_WRONLY | O_CLOEXEC);
  if (out < 0) {
    ::close(in);
    register_temp_file(kept);  // OUT untouched: the temporary file may go
    return Error{shown_ + ": cannot open for writing: " + std::strerror(errno)};
  }
  std::string error;
  if (Status reserved = reserve_space(in, out); !reserved) {
    ::close(in);
    ::close(out);
    register_temp_file(kept);
    return reserved;
  }
  std::string buffer(std::size_t{1} << 20, '\0');
  std::uint64_t written = 0;
  ssize_t n = 0;
  while ((n = ::read(in, buffer.data(), buffer.size())) > 0 || (n < 0 && errno == EINTR)) {
    if (n <= 0) continue;
    if (!write_all(out, std::string_view(buffer.data(), static_cast<std::size_t>(n)), error)) break;
    written += static_cast<std::uint64_t>(n);
  }
  if (n < 0 && error.empty()) error = std::strerror(errno);
  if (error.empty() && ::ftruncate(out, static_cast<off_t>(written)) != 0) error = std::strerror(errno);
  ::close(in);
  if (::close(out) != 0 && error.empty()) error = std::strerror(errno);
  if (!error.empty()) {
    temp_path_.clear();  // kept: it holds the only complete copy
    return Error{shown_ + ": writing in place failed (" + error + "); the complete output is in " + kept};
  }
  ::unlink(kept.c_str());
  temp_path_.clear();
  return ok_status();
}

// Extends OUT to at least the new size without changing a byte of its content, then gives back what was added.
// Fails (with OUT as it was) when the file system or the file size limit has no room for the new content.
Status FileSink::reserve_space(int in, int out) const {
  struct stat in_stat {};
  struct stat out_stat {};
  if (::fstat(in, &in_stat) != 0 || ::fstat(out, &out_stat) != 0)
    return Error{shown_ + ": cannot read the file sizes: " + std::strerror(errno)};
  if (in_stat.st_size <= out_stat.st_size) return ok_status();
  const int rc = ::posix_fallocate(out, 0, in_stat.st_size);
  if (rc == 0 || rc == EOPNOTSUPP || rc == EINVAL) return ok_status();  // no reservation on this file system
  (void)!::ftruncate(out, out_stat.st_size);
  return Error{shown_ + ": write failed: " + std::strerror(rc) + "; " + shown_ + " is unchanged"};
}

}  // namespace gtv::io
