#pragma once
// One writer for every figure gtv draws (the trace figure of export.h, the What if and compare figures of
// panels_figure.h): the figure's paint function drawn into the bytes of a PNG, JPG, PDF or SVG file, every device at
// one resolution so text measured once fits in all of them. An SVG names the generic font family "sans-serif".
#include <QByteArray>
#include <QColor>
#include <QImage>
#include <QString>
#include <functional>

class QCPPainter;

namespace gtv::ui {

inline constexpr int kFigureDpi = 96;
inline constexpr int kFigureDotsPerMeter = 3780;  // 96 dpi

struct FigurePage {
  QString suffix;  // "png", "jpg", "jpeg", "pdf" or "svg"
  int width_px = 0;
  int height_px = 0;
  QString title;      // the SVG's and the PDF's title
  QColor background;  // filled under a raster figure (a PDF page or an SVG is left as the paint draws it)
  double scale = 1;   // raster pixels per figure pixel
  int jpg_quality = -1;
};

// The figure's file bytes; empty when the suffix is none of those or the device could not be drawn on.
[[nodiscard]] QByteArray write_figure(const FigurePage& page, const std::function<void(QCPPainter&)>& paint);
// An SVG with every font-family replaced by the generic "sans-serif".
[[nodiscard]] QByteArray generic_font_family(const QByteArray& svg);
// A 1x1 image at the figure's resolution, for measuring text as the figure draws it.
[[nodiscard]] QImage figure_metrics_image();

}  // namespace gtv::ui
