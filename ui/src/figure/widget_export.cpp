#include "gtv/ui/widget_export.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>
#include <cmath>

#include "gtv/ui/image_file.h"
#include "gtv/ui/timeline_view.h"

namespace gtv::ui {
namespace {

constexpr int kDpi = 96;

QByteArray render_raster(QWidget& widget, const char* format, double scale) {
  const QSize size_px(static_cast<int>(std::ceil(widget.width() * scale)),
                      static_cast<int>(std::ceil(widget.height() * scale)));
  QImage image(size_px, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(scale);
  image.fill(widget.palette().color(QPalette::Window));
  {
    QPainter painter(&image);
    widget.render(&painter);
  }
  return encode_image(image, format);
}

QByteArray render_svg(QWidget& widget) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  if (!buffer.open(QIODevice::WriteOnly)) return {};
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(widget.size());
  generator.setViewBox(QRect(QPoint(0, 0), widget.size()));
  generator.setResolution(kDpi);
  generator.setTitle(QStringLiteral("gtv"));
  QPainter painter;
  if (!painter.begin(&generator)) return {};
  widget.render(&painter);
  if (!painter.end()) return {};
  return bytes;
}

QByteArray render_pdf(QWidget& widget) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  if (!buffer.open(QIODevice::WriteOnly)) return {};
  QPdfWriter writer(&buffer);
  writer.setResolution(kDpi);
  writer.setPageSize(QPageSize(QSizeF(widget.width(), widget.height()) * 72.0 / kDpi, QPageSize::Point));
  writer.setPageMargins(QMarginsF(0, 0, 0, 0));
  QPainter painter;
  if (!painter.begin(&writer)) return {};
  widget.render(&painter);
  if (!painter.end()) return {};
  return bytes;
}

}  // namespace

Status export_widget(QWidget& widget, const QString& path, double scale) {
  // The plots draw from buffers: bring them up to date first.
  for (auto* view : widget.findChildren<TimelineView*>()) view->replot_now();
  const QString suffix = QFileInfo(path).suffix().toLower();
  QByteArray bytes;
  if (suffix == QLatin1String("png"))
    bytes = render_raster(widget, "PNG", scale);
  else if (suffix == QLatin1String("jpg") || suffix == QLatin1String("jpeg"))
    bytes = render_raster(widget, "JPG", scale);
  else if (suffix == QLatin1String("svg"))
    bytes = render_svg(widget);
  else if (suffix == QLatin1String("pdf"))
    bytes = render_pdf(widget);
  else
    return Error{path.toStdString() + ": unknown image format (png, jpg, svg, pdf)"};
  if (bytes.isEmpty()) return Error{path.toStdString() + ": could not write the image"};
  return write_image_file(path, bytes);
}

}  // namespace gtv::ui
