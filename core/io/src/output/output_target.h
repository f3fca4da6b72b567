#pragma once
// Where and how a file gtv writes goes, decided before the first byte so that writing never destroys what OUT
// names: a symlink's target is written (the link stays a link); a FIFO or device (/dev/stdout, /dev/null, a tty)
// is streamed into as it is; a directory or an unwritable file is refused; a regular file is replaced atomically
// (a temporary file next to it, renamed over it) keeping its mode and, where permitted, its owner.
#include <sys/stat.h>

#include <string>

#include "gtv/base/expected.h"

namespace gtv::io {

enum class OutputMode {
  Replace,        // a new or regular file: write a temporary next to it, then rename over it
  CopyIntoPlace,  // a regular file with other hard links: write a temporary, then copy it into the file
  Stream,         // a FIFO, character or block device, ...: open it and write straight into it
};

struct OutputTarget {
  std::string path;  // the file itself: OUT, or what the symlink OUT points to (after every hop)
  OutputMode mode = OutputMode::Replace;
  bool exists = false;
  struct stat existing {};  // of path, when exists
};

// Errors are one line naming `path` as the user gave it.
[[nodiscard]] Expected<OutputTarget> resolve_output(const std::string& path);

}  // namespace gtv::io
