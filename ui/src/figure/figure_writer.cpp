#include "gtv/ui/figure_writer.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <cmath>

#include "gtv/ui/image_file.h"

namespace gtv::ui {

// The generic family: the SVG names the font of this machine ("DejaVu Sans"), which a journal's or a reader's
// machine may not have; "sans-serif" lets each pick its own, as a paper's figures should.
QByteArray generic_font_family(const QByteArray& svg) {
  static const QRegularExpression family(QStringLiteral("font-family=\"[^\"]*\""));
  return QString::fromUtf8(svg).replace(family, QStringLiteral("font-family=\"sans-serif\"")).toUtf8();
}

QImage figure_metrics_image() {
  QImage image(1, 1, QImage::Format_ARGB32);
  image.setDotsPerMeterX(kFigureDotsPerMeter);
  image.setDotsPerMeterY(kFigureDotsPerMeter);
  return image;
}

QByteArray write_figure(const FigurePage& page, const std::function<void(QCPPainter&)>& paint) {
  const int w = page.width_px, h = page.height_px;
  QCPPainter p;
  if (page.suffix == "svg" || page.suffix == "pdf") {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    if (!buffer.open(QIODevice::WriteOnly)) return {};
    if (page.suffix == "svg") {
      QSvgGenerator generator;
      generator.setOutputDevice(&buffer);
      generator.setResolution(kFigureDpi);
      generator.setSize(QSize(w, h));
      generator.setViewBox(QRect(0, 0, w, h));
      generator.setTitle(page.title);
      if (!p.begin(&generator)) return {};
      paint(p);
      if (!p.end()) return {};
      return generic_font_family(bytes);
    }
    QPdfWriter writer(&buffer);
    writer.setResolution(kFigureDpi);
    writer.setCreator(QStringLiteral("gtv"));
    writer.setTitle(page.title);
    const QSizeF points(w * 72.0 / kFigureDpi, h * 72.0 / kFigureDpi);
    writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
                                     QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    if (!p.begin(&writer)) return {};
    p.setMode(QCPPainter::pmNonCosmetic);
    paint(p);
    if (!p.end()) return {};
    return bytes;
  }
  const bool jpg = page.suffix == "jpg" || page.suffix == "jpeg";
  if (page.suffix != "png" && !jpg) return {};
  QImage image(static_cast<int>(std::lround(w * page.scale)), static_cast<int>(std::lround(h * page.scale)),
               QImage::Format_ARGB32);
  image.setDotsPerMeterX(kFigureDotsPerMeter);
  image.setDotsPerMeterY(kFigureDotsPerMeter);
  image.fill(page.background);
  if (!p.begin(&image)) return {};
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  if (page.scale != 1.0) {
    p.scale(page.scale, page.scale);
    p.setMode(QCPPainter::pmNonCosmetic);
  }
  paint(p);
  if (!p.end()) return {};
  if (!jpg) return encode_image(image, "PNG");
  return encode_image(image.convertToFormat(QImage::Format_RGB32), "JPG", page.jpg_quality);
}

}  // namespace gtv::ui
