#pragma once
// Writing a file a user named (an exported image, a picture of a view) by the rules every trace gtv writes follows,
// so that writing never destroys what the path names: a symlink's target is written (the link stays a link); a
// FIFO or device (/dev/stdout, /dev/null) is streamed into as it is; a directory or an unwritable file is refused;
// a regular file is replaced atomically through a temporary file next to it, keeping its mode (a file with other
// hard links is written in place once the temporary holds the complete content); a new file gets the umask's mode.
// The temporary file is removed on failure and when SIGINT, SIGTERM or SIGHUP ends the process meanwhile.
#include <string>
#include <string_view>

#include "gtv/base/expected.h"

namespace gtv::io {

// Writes bytes, as they are, to path. Errors are one line naming path. A failed write leaves a regular file as it
// was, except when copying into a hard-linked file fails half way: the error then names the temporary file that
// holds the complete output. A FIFO or device may have received part of the bytes.
[[nodiscard]] Status write_output_file(const std::string& path, std::string_view bytes);

}  // namespace gtv::io
