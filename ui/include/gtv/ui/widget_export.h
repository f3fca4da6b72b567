#pragma once
// A picture of a whole widget as it is on screen, for tabs that are more than one timeline: the compare view (its
// panels stacked, headers and all, as `gtv --compare-shot` draws it) and the classroom view. PNG and JPG at a
// scale factor, SVG and PDF with the widget's drawing; drawn into memory, then written as export_timeline writes
// (image_file.h), so a failed export never leaves half a file.
#include <QString>

#include "gtv/base/expected.h"

class QWidget;

namespace gtv::ui {

[[nodiscard]] Status export_widget(QWidget& widget, const QString& path, double scale = 1.0);

}  // namespace gtv::ui
