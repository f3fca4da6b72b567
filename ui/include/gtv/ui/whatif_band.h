#pragma once
// The What if band drawn on the time axis of the panels (time from the start of the timed region, where the runs
// are aligned): the predicted end as a range (the band) with the point estimate marked, the recorded end marked and,
// where there is one, the end of the recording of the variant. One painter for the tab's strip (BandStrip) and the
// exported figure, so both draw the same thing.
#include <QRectF>
#include <QString>
#include <QWidget>
#include <optional>

#include "gtv/model/records.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/time_mapping.h"
#include "gtv/whatif/predict.h"

namespace gtv::ui {

class TimelineView;

// Lengths of the timed region (its end on the aligned axis).
struct BandMarks {
  TimeNs low_ns = 0;
  TimeNs predicted_ns = 0;
  TimeNs high_ns = 0;
  TimeNs recorded_ns = 0;
  std::optional<TimeNs> variant_ns;  // the recording of the variant
};

[[nodiscard]] BandMarks band_marks(const whatif::Prediction& p, std::optional<TimeNs> variant_ns);

// What the band says about the recorded length, in one line: "The band reaches the recorded end (128.4 ms): the
// prediction cannot rule out that the change saves nothing."
[[nodiscard]] QString band_meaning(const whatif::Prediction& p);

// Lines of text the band takes (the predicted end, the band, the recorded end, the variant's end).
[[nodiscard]] int band_lines(const BandMarks& marks);

// Paints the band into area: names in the part left of time_area, the marks on time_area, which shows axis_window
// (ns on the aligned axis). Marks outside the window are drawn at its edge with their label.
void paint_band(QPainter& p, const QRectF& area, const QRectF& time_area, TimeWindow axis_window,
                const BandMarks& marks, const Theme& theme);

// The band in the What if tab, over the panels: it follows the first panel's window and label column.
class BandStrip : public QWidget {
  Q_OBJECT
 public:
  explicit BandStrip(QWidget* parent = nullptr);
  // view: the panel whose time axis the strip follows; axis_origin_ns: where that axis counts from.
  void set_band(const BandMarks& marks, const TimelineView* view, TimeNs axis_origin_ns);
  void set_theme(const Theme& theme);
  [[nodiscard]] const BandMarks& marks() const { return marks_; }
  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSizeHint() const override { return sizeHint(); }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  BandMarks marks_;
  const TimelineView* view_ = nullptr;
  TimeNs axis_origin_ns_ = 0;
  Theme theme_;
};

}  // namespace gtv::ui
