#include "gtv/ui/app_palette.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>
#include <optional>

#include "gtv/ui/theme.h"

namespace gtv::ui {
namespace {

struct StartingLook {
  QString style;
  QPalette palette;
};

std::optional<StartingLook>& starting_look() {
  static std::optional<StartingLook> look;
  return look;
}

void set_style(const QString& name) {
  if (QApplication::style()->name().compare(name, Qt::CaseInsensitive) == 0) return;
  if (QStyle* style = QStyleFactory::create(name)) QApplication::setStyle(style);
}

}  // namespace

QPalette dark_app_palette() {
  const Theme plot = dark_theme();
  // Fusion draws frames and check box borders in the window colour darkened by 40%: the window is lighter
  // and the base (text views, lists) darker than the plot's own greys, so an unchecked box still shows.
  const QColor window(0x3a, 0x3d, 0x42);
  const QColor base(0x17, 0x18, 0x1b);
  const QColor text = plot.text;
  const QColor disabled(0x80, 0x80, 0x80);
  const QColor highlight(0x2f, 0x6f, 0xb8);
  QPalette p;
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, plot.header_background);
  p.setColor(QPalette::ToolTipBase, QColor(0x38, 0x3b, 0x42));
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, disabled);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, plot.group_background);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, QColor(0xff, 0x60, 0x60));
  p.setColor(QPalette::Light, QColor(0x50, 0x53, 0x5a));
  p.setColor(QPalette::Midlight, QColor(0x44, 0x47, 0x4e));
  p.setColor(QPalette::Mid, QColor(0x30, 0x32, 0x37));
  p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
  p.setColor(QPalette::Shadow, QColor(0x00, 0x00, 0x00));
  p.setColor(QPalette::Highlight, highlight);
  p.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
  p.setColor(QPalette::Link, QColor(0x6a, 0xb0, 0xff));
  p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x90, 0xff));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::HighlightedText})
    p.setColor(QPalette::Disabled, role, disabled);
  p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x50, 0x50));
  return p;
}

void apply_app_palette(bool dark) {
  auto& start = starting_look();
  if (!start) start = StartingLook{QApplication::style()->name(), QApplication::palette()};
  if (dark) {
    set_style(QStringLiteral("Fusion"));  // follows the palette everywhere, unlike native styles
    QApplication::setPalette(dark_app_palette());
  } else {
    set_style(start->style);
    QApplication::setPalette(start->palette);
  }
}

}  // namespace gtv::ui
