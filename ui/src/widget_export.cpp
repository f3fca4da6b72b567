#include "gtv/ui/widget_export.h"

#include <QFileInfo>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>
#include <cmath>
#include <filesystem>

#include "gtv/ui/timeline_view.h"

namespace gtv::ui {
namespace {

constexpr int kDpi = 96;

bool write_raster(QWidget& widget, const QString& tmp, const char* format, double scale) {
  const QSize size_px(static_cast<int>(std::ceil(widget.width() * scale)),
                      static_cast<int>(std::ceil(widget.height() * scale)));
  QImage image(size_px, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(scale);
  image.fill(widget.palette().color(QPalette::Window));
  {
    QPainter painter(&image);
    widget.render(&painter);
  }
  return image.save(tmp, format);
}

bool write_svg(QWidget& widget, const QString& tmp) {
  QSvgGenerator generator;
  generator.setFileName(tmp);
  generator.setSize(widget.size());
  generator.setViewBox(QRect(QPoint(0, 0), widget.size()));
  generator.setResolution(kDpi);
  generator.setTitle(QStringLiteral("gtv"));
  QPainter painter;
  if (!painter.begin(&generator)) return false;
  widget.render(&painter);
  return painter.end();
}

bool write_pdf(QWidget& widget, const QString& tmp) {
  QPdfWriter writer(tmp);
  writer.setResolution(kDpi);
  writer.setPageSize(QPageSize(QSizeF(widget.width(), widget.height()) * 72.0 / kDpi, QPageSize::Point));
  writer.setPageMargins(QMarginsF(0, 0, 0, 0));
  QPainter painter;
  if (!painter.begin(&writer)) return false;
  widget.render(&painter);
  return painter.end();
}

}  // namespace

Status export_widget(QWidget& widget, const QString& path, double scale) {
  // The plots draw from buffers: bring them up to date first.
  for (auto* view : widget.findChildren<TimelineView*>()) view->replot_now();
  const QString suffix = QFileInfo(path).suffix().toLower();
  const QString tmp = path + QStringLiteral(".part");
  bool ok = false;
  if (suffix == QLatin1String("png"))
    ok = write_raster(widget, tmp, "PNG", scale);
  else if (suffix == QLatin1String("jpg") || suffix == QLatin1String("jpeg"))
    ok = write_raster(widget, tmp, "JPG", scale);
  else if (suffix == QLatin1String("svg"))
    ok = write_svg(widget, tmp);
  else if (suffix == QLatin1String("pdf"))
    ok = write_pdf(widget, tmp);
  else
    return Error{path.toStdString() + ": unknown image format (png, jpg, svg, pdf)"};
  std::error_code ec;
  if (!ok) {
    std::filesystem::remove(tmp.toStdString(), ec);
    return Error{path.toStdString() + ": could not write the image"};
  }
  std::filesystem::rename(tmp.toStdString(), path.toStdString(), ec);
  if (ec) return Error{path.toStdString() + ": " + ec.message()};
  return ok_status();
}

}  // namespace gtv::ui
