#pragma once
// Pictures are rendered into memory and only then written, with the output rules of every file gtv writes
// (gtv/io/output_file.h): a symlink's target is written, a FIFO or device is streamed into, a directory or an
// unwritable file is refused, a regular file is replaced atomically keeping its mode, and a failed write leaves
// it as it was.
#include <QByteArray>
#include <QString>

#include "gtv/base/expected.h"

class QImage;

namespace gtv::ui {

// image encoded as format ("PNG", "JPG", ...) with quality -1 (the format's default) or 0..100; empty when Qt
// cannot encode it.
[[nodiscard]] QByteArray encode_image(const QImage& image, const char* format, int quality = -1);
// Writes bytes to path; errors are one line naming path.
[[nodiscard]] Status write_image_file(const QString& path, const QByteArray& bytes);
// image in the format path's suffix names (png, jpg, bmp, ...), written as write_image_file does;
// "PATH: could not write the picture" when Qt has no encoder for that suffix.
[[nodiscard]] Status save_picture(const QImage& image, const QString& path);

}  // namespace gtv::ui
