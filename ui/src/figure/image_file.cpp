#include "gtv/ui/image_file.h"

#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <string_view>

#include "gtv/io/output_file.h"

namespace gtv::ui {

QByteArray encode_image(const QImage& image, const char* format, int quality) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  if (image.isNull() || !buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, format, quality)) return {};
  return bytes;
}

Status write_image_file(const QString& path, const QByteArray& bytes) {
  return io::write_output_file(QFile::encodeName(path).toStdString(),
                               std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
}

Status save_picture(const QImage& image, const QString& path) {
  // As QImage::save(path) picks the format: the suffix, in lower case.
  const QByteArray format = QFileInfo(path).suffix().toLower().toLatin1();
  const QByteArray bytes = format.isEmpty() ? QByteArray() : encode_image(image, format.constData());
  if (bytes.isEmpty()) return Error{path.toStdString() + ": could not write the picture"};
  return write_image_file(path, bytes);
}

}  // namespace gtv::ui
