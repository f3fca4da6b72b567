#pragma once
// The clocks of a run merged from rank files, as the user sets them: the alignment method (the ranks' wall clocks
// or matched collectives) and a shift per rank in microseconds, for clocks the trace cannot align (ranks without
// collectives, hosts whose clocks drifted). Shows how the run is aligned now, its basis and residual.
#include <QDialog>
#include <vector>

#include "gtv/model/rank_merge.h"

class QComboBox;
class QDoubleSpinBox;

namespace gtv::ui {

class RankClockDialog : public QDialog {
  Q_OBJECT
 public:
  // metadata: the merged run as it is; options: the options it was merged with.
  RankClockDialog(const TraceMetadata& metadata, const RankMergeOptions& options, QWidget* parent = nullptr);
  [[nodiscard]] RankMergeOptions options() const;

 private:
  RankMergeOptions base_;
  QComboBox* method_ = nullptr;
  std::vector<std::pair<std::int64_t, QDoubleSpinBox*>> shifts_;  // rank, its shift in us
};

}  // namespace gtv::ui
