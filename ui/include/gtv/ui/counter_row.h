#pragma once
// A counter series ("C" events: the allocator's bytes, a power reading) as a step chart in its process or GPU group,
// scaled from 0 to the series' maximum so zooming never rescales it. Cost per paint follows the pixels: samples
// denser than a pixel are drawn as the column's highest value.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gtv/model/trace.h"
#include "gtv/ui/timeline_row.h"

namespace gtv::ui {

// The value in force at t_ns: the last sample at or before it, or nothing before the first sample.
[[nodiscard]] std::optional<CounterSample> counter_sample_at(const CounterSeries& series, TimeNs t_ns);
// Highest value in force over each of `columns` pixel columns of window (a column with no sample yet: NaN). Pure,
// unit tested; what the row draws.
[[nodiscard]] std::vector<double> counter_column_max(const CounterSeries& series, TimeWindow window, int columns);
// A value as text: bytes with their unit when the series' name says bytes, else the number.
[[nodiscard]] std::string counter_value_text(const CounterSeries& series, double value);

class CounterRow : public TimelineRow {
 public:
  // series must outlive the row (it lives in the Trace).
  CounterRow(const CounterSeries& series, GroupKey group);

  [[nodiscard]] RowDesc desc() const override;
  void draw(const RowPaint& paint) const override;
  [[nodiscard]] QString tooltip_at(TimeNs t_ns, int depth, TimeNs pixel_ns, TimeNs origin_ns) const override;
  // A series that reads 0 throughout the window ("reserved by PyTorch: max 0 bytes") shows nothing there.
  [[nodiscard]] bool has_content_in(TimeNs t0_ns, TimeNs t1_ns) const override;

 private:
  const CounterSeries* series_;
  GroupKey group_;
  double max_value_ = 0;
};

}  // namespace gtv::ui
