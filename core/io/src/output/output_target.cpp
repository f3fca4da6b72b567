#include "output/output_target.h"

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gtv::io {
namespace {

constexpr int kMaxSymlinkHops = 40;  // as the kernel's own limit (ELOOP)

Expected<std::string> read_link(const std::string& link) {
  std::string target(PATH_MAX, '\0');
  const ssize_t n = ::readlink(link.c_str(), target.data(), target.size());
  if (n < 0) return Error{std::strerror(errno)};
  target.resize(static_cast<std::size_t>(n));
  if (target.empty() || target.front() == '/') return target;
  return (std::filesystem::path(link).parent_path() / target).string();  // relative to the link's folder
}

// Classifies the existing file at target.path.
Expected<OutputTarget> classify(const std::string& shown, OutputTarget target) {
  const struct stat& st = target.existing;
  if (S_ISDIR(st.st_mode)) return Error{shown + ": is a directory; give a file name to write"};
  if (::access(target.path.c_str(), W_OK) != 0) return Error{shown + ": cannot write: " + std::strerror(errno)};
  if (!S_ISREG(st.st_mode)) {
    target.mode = OutputMode::Stream;
  } else if (st.st_nlink > 1) {
    // Users who hard-link a file expect every name to see the new content (as editors keep links), so such a file
    // is written in place; the complete content is produced in a temporary first, so a failed conversion still
    // leaves the file untouched.
    target.mode = OutputMode::CopyIntoPlace;
  }
  return target;
}

bool names_a_descriptor(const std::string& path) { return path.rfind("/proc/", 0) == 0; }

// /dev/stdout, /dev/fd/N and /proc/self/fd/N name an open descriptor (a pipe, a terminal, or the file a shell
// redirected to with > or >>): written through as they are, since replacing the file the link points to would send
// the output to a name nobody holds open.
OutputTarget stream_target(const std::string& path, const struct stat& st) {
  OutputTarget target;
  target.path = path;
  target.mode = OutputMode::Stream;
  target.exists = true;
  target.existing = st;
  return target;
}

}  // namespace

Expected<OutputTarget> resolve_output(const std::string& path) {
  if (path.empty()) return Error{"output path is empty"};
  OutputTarget target;
  target.path = path;
  for (int hop = 0;; ++hop) {
    if (names_a_descriptor(target.path)) {
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) return Error{path + ": " + std::strerror(errno)};
      if (S_ISDIR(st.st_mode)) return Error{path + ": is a directory; give a file name to write"};
      return stream_target(path, st);
    }
    if (::lstat(target.path.c_str(), &target.existing) != 0) {
      if (errno == ENOENT) return target;  // a new file (or a dangling symlink's target)
      return Error{path + ": " + std::strerror(errno)};
    }
    if (!S_ISLNK(target.existing.st_mode)) break;
    if (hop == kMaxSymlinkHops) return Error{path + ": too many levels of symbolic links"};
    Expected<std::string> next = read_link(target.path);
    if (!next) return Error{path + ": cannot read the symbolic link " + target.path + ": " + next.error().message};
    target.path = *next;
  }
  target.exists = true;
  return classify(path, std::move(target));
}

}  // namespace gtv::io
