#include "gtv/ui/ranks_overview.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "gtv/ui/widget_export.h"

namespace gtv::ui {
namespace {

std::vector<std::string> to_paths(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& p : list) out.push_back(p.toStdString());
  return out;
}

QString title_of(const RanksRun& run) {
  return QObject::tr("Ranks overview: %1, %2 ranks x %3 collectives")
      .arg(QString::fromStdString(run.title))
      .arg(run.report.stragglers.ranks.size())
      .arg(run.report.stragglers.collectives.size());
}

// The report's verdict (load_ranks_run refuses a run without matched collectives, which has none).
QString headline_of(const RanksRun& run) { return QString::fromStdString(run.report.stragglers.headline); }

}  // namespace

RanksOverview::RanksOverview(QStringList paths, const RankMergeOptions& options, QWidget* parent)
    : QWidget(parent),
      paths_(std::move(paths)),
      stack_(new QStackedWidget(this)),
      status_(new QLabel(this)),
      headline_(new QLabel(this)),
      warnings_(new QLabel(this)),
      clock_box_(new QComboBox(this)),
      colour_box_(new QComboBox(this)),
      order_box_(new QComboBox(this)),
      canvas_(new RanksCanvas(this)) {
  auto* page = new QWidget(stack_);
  auto* layout = new QVBoxLayout(page);
  headline_->setWordWrap(true);
  headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(headline_);
  warnings_->setWordWrap(true);
  warnings_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  warnings_->hide();
  layout->addWidget(warnings_);
  auto* controls = new QHBoxLayout;
  clock_box_->addItem(tr("Clocks: each host's wall clock"), static_cast<int>(ClockMethod::WallClock));
  clock_box_->addItem(tr("Clocks: aligned on the collectives that end together"),
                      static_cast<int>(ClockMethod::Collectives));
  clock_box_->setToolTip(tr("How the ranks' clocks are put on one time axis (as gtv-cli reduce --clock)"));
  controls->addWidget(clock_box_);
  colour_box_->addItem(tr("Colour: how long the rank waited"), static_cast<int>(RanksColour::Waited));
  colour_box_->addItem(tr("Colour: how long the others waited for the rank"), static_cast<int>(RanksColour::Caused));
  order_box_->addItem(tr("Ranks in rank order"), false);
  order_box_->addItem(tr("Ranks by lateness (the others' wait for them, longest first)"), true);
  controls->addWidget(colour_box_);
  controls->addWidget(order_box_);
  controls->addStretch(1);
  auto* hint = new QLabel(tr("Hover: exact times. Click: that rank's trace at that collective. Wheel: zoom."), page);
  controls->addWidget(hint);
  layout->addLayout(controls);
  layout->addWidget(canvas_, 1);
  connect(clock_box_, &QComboBox::activated, this, [this](int index) {
    RankMergeOptions chosen;
    chosen.clock = static_cast<ClockMethod>(clock_box_->itemData(index).toInt());
    reduce_with(chosen);
  });
  connect(colour_box_, &QComboBox::activated, this,
          [this](int index) { canvas_->set_colour(static_cast<RanksColour>(colour_box_->itemData(index).toInt())); });
  connect(order_box_, &QComboBox::activated, this,
          [this](int index) { canvas_->set_by_lateness(order_box_->itemData(index).toBool()); });
  connect(canvas_, &RanksCanvas::cell_clicked, this, [this](std::size_t row, std::size_t column) {
    if (!run_) return;
    const RankTarget target = rank_target(*run_, row, column);
    emit open_rank(QString::fromStdString(target.file), target.rank, target.window);
  });
  status_->setAlignment(Qt::AlignCenter);
  status_->setText(tr("Reading and reducing %1...").arg(paths_.join(QStringLiteral(", "))));
  stack_->addWidget(status_);
  stack_->addWidget(page);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(stack_);
  connect(&watcher_, &QFutureWatcher<Expected<RanksRun>>::finished, this, &RanksOverview::on_reduced);
  reduce_with(options);
}

void RanksOverview::reduce_with(const RankMergeOptions& options) {
  watcher_.waitForFinished();
  delivered_ = false;
  clock_box_->setEnabled(false);
  clock_box_->setCurrentIndex(clock_box_->findData(static_cast<int>(options.clock)));
  watcher_.setFuture(QtConcurrent::run([p = to_paths(paths_), options] { return load_ranks_run(p, options); }));
}

RanksOverview::~RanksOverview() { watcher_.waitForFinished(); }

QString RanksOverview::title() const {
  if (run_)
    return tr("%1 (%2 ranks)").arg(QString::fromStdString(run_->title)).arg(run_->report.stragglers.ranks.size());
  return paths_.value(0);
}

void RanksOverview::wait() {
  watcher_.waitForFinished();
  if (!delivered_) on_reduced();
}

void RanksOverview::on_reduced() {
  if (delivered_ || watcher_.future().resultCount() == 0) return;
  delivered_ = true;
  clock_box_->setEnabled(true);
  Expected<RanksRun> result = watcher_.result();
  if (!result) {
    const QString message = QString::fromStdString(result.error().message);
    if (run_) {  // a second reduction: the run shown stays
      warnings_->setText(tr("Not reduced again: %1").arg(message));
      warnings_->show();
      return;
    }
    status_->setText(message);
    emit failed(message);
    return;
  }
  const bool first = run_ == nullptr;
  run_ = std::make_shared<const RanksRun>(std::move(result).value());
  headline_->setText(headline_of(*run_));
  QStringList warnings;
  for (const std::string& w : run_->report.warnings) warnings << tr("Warning: %1").arg(QString::fromStdString(w));
  warnings_->setText(warnings.join(QLatin1Char('\n')));
  warnings_->setVisible(!warnings.isEmpty());
  canvas_->set_run(run_);
  stack_->setCurrentIndex(1);
  if (first) emit loaded();
}

Status export_ranks_figure(const std::shared_ptr<const RanksRun>& run, const QString& path, RanksColour colour,
                           bool by_lateness, int width_px, bool dark, double scale) {
  if (!run) return Error{"no reduced run to draw"};
  // The text is sized for the width, as the trace figures are: a 1600-pixel figure at the window's sizes.
  const Theme theme =
      dark ? dark_theme(std::max(1.0, width_px / 1200.0)) : light_theme(std::max(1.0, width_px / 1200.0));
  QWidget figure;
  figure.setAutoFillBackground(true);
  QPalette palette = figure.palette();
  palette.setColor(QPalette::Window, theme.background);
  palette.setColor(QPalette::WindowText, theme.text);
  figure.setPalette(palette);
  auto* layout = new QVBoxLayout(&figure);
  auto* title = new QLabel(title_of(*run), &figure);
  title->setFont(theme.font(12, true));
  auto* canvas = new RanksCanvas(&figure);
  canvas->set_theme(theme);
  canvas->set_run(run);
  canvas->set_colour(colour);
  canvas->set_by_lateness(by_lateness);
  const QString order = by_lateness ? QObject::tr(
                                          "Ranks by lateness (the others' wait for them over the run, "
                                          "longest first).")
                                    : QObject::tr("Ranks in rank order.");
  auto* caption = new QLabel(headline_of(*run) + QStringLiteral(" ") + order + QStringLiteral(" ") +
                                 QObject::tr("Columns: the collectives matched across ranks by %1, in order; clocks "
                                             "aligned by the %2.")
                                     .arg(QString::fromStdString(run->report.stragglers.match_basis),
                                          QString::fromStdString(run->report.summary.clock.method)),
                             &figure);
  caption->setWordWrap(true);
  caption->setFont(theme.font(9));
  layout->addWidget(title);
  layout->addWidget(canvas, 1);
  layout->addWidget(caption);
  const std::size_t rows = run->report.stragglers.ranks.size();
  // Tall enough for every rank at a pixel or more, and no taller than the grid needs.
  const int grid_h = static_cast<int>(std::clamp<std::size_t>(rows * 16, 300, std::max<std::size_t>(rows, 700)));
  figure.resize(width_px, grid_h + 220 * static_cast<int>(theme.font_scale));
  figure.ensurePolished();
  layout->activate();
  return export_widget(figure, path, scale);
}

}  // namespace gtv::ui
