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

QString title_of(const RanksRun& run, RanksColumns columns) {
  const QString what = columns == RanksColumns::Steps
                           ? QObject::tr("%1 steps").arg(run.report.step_paths.steps.size())
                           : QObject::tr("%1 collectives").arg(run.report.stragglers.collectives.size());
  return QObject::tr("Ranks overview: %1, %2 ranks x %3")
      .arg(QString::fromStdString(run.title))
      .arg(run.report.stragglers.ranks.size())
      .arg(what);
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
      columns_box_(new QComboBox(this)),
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
  columns_box_->addItem(tr("Columns: collectives"), static_cast<int>(RanksColumns::Collectives));
  columns_box_->addItem(tr("Columns: steps"), static_cast<int>(RanksColumns::Steps));
  columns_box_->setToolTip(
      tr("A column per matched collective, or per step (ProfilerStep#N, else the steps the "
         "collectives every rank waits for end), each step's bounding rank in orange in the own-wait colouring"));
  controls->addWidget(columns_box_);
  colour_box_->addItem(tr("Colour: how long the rank waited"), static_cast<int>(RanksColour::Waited));
  colour_box_->addItem(tr("Colour: how long the others waited for the rank"), static_cast<int>(RanksColour::Caused));
  order_box_->addItem(tr("Ranks in rank order"), false);
  order_box_->addItem(tr("Ranks by lateness (the others' wait for them, longest first)"), true);
  controls->addWidget(colour_box_);
  controls->addWidget(order_box_);
  controls->addStretch(1);
  auto* hint = new QLabel(tr("Hover: exact times. Click: that rank's trace there. Wheel: zoom."), page);
  controls->addWidget(hint);
  layout->addLayout(controls);
  layout->addWidget(canvas_, 1);
  connect(clock_box_, &QComboBox::activated, this, [this](int index) {
    RankMergeOptions chosen;
    chosen.clock = static_cast<ClockMethod>(clock_box_->itemData(index).toInt());
    reduce_with(chosen);
  });
  connect(columns_box_, &QComboBox::activated, this, [this](int index) {
    canvas_->set_column_kind(static_cast<RanksColumns>(columns_box_->itemData(index).toInt()));
  });
  connect(colour_box_, &QComboBox::activated, this,
          [this](int index) { canvas_->set_colour(static_cast<RanksColour>(colour_box_->itemData(index).toInt())); });
  connect(order_box_, &QComboBox::activated, this,
          [this](int index) { canvas_->set_by_lateness(order_box_->itemData(index).toBool()); });
  connect(canvas_, &RanksCanvas::cell_clicked, this, [this](std::size_t row, std::size_t column) {
    if (!run_) return;
    const RankTarget target = canvas_->column_kind() == RanksColumns::Steps ? rank_step_target(*run_, row, column)
                                                                            : rank_target(*run_, row, column);
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
  // Steps only where the run has them; a run reduced again keeps the columns chosen when it can.
  const bool steps = !run_->report.step_paths.steps.empty();
  columns_box_->setEnabled(steps);
  if (!steps && canvas_->column_kind() == RanksColumns::Steps) canvas_->set_column_kind(RanksColumns::Collectives);
  columns_box_->setCurrentIndex(columns_box_->findData(static_cast<int>(canvas_->column_kind())));
  canvas_->set_run(run_);
  stack_->setCurrentIndex(1);
  if (first) emit loaded();
}

void RanksOverview::set_view(RanksColour colour, bool by_lateness, RanksColumns columns) {
  if (columns == RanksColumns::Steps && run_ && run_->report.step_paths.steps.empty())
    columns = RanksColumns::Collectives;
  canvas_->set_colour(colour);
  canvas_->set_by_lateness(by_lateness);
  canvas_->set_column_kind(columns);
  colour_box_->setCurrentIndex(colour_box_->findData(static_cast<int>(colour)));
  order_box_->setCurrentIndex(order_box_->findData(by_lateness));
  columns_box_->setCurrentIndex(columns_box_->findData(static_cast<int>(columns)));
}

Status export_ranks_figure(const std::shared_ptr<const RanksRun>& run, const QString& path,
                           const RanksFigureOptions& options) {
  if (!run) return Error{"no reduced run to draw"};
  if (options.columns == RanksColumns::Steps && run->report.step_paths.steps.empty())
    return Error{run->title + ": no steps across ranks to draw (fewer than two ranks with matched collectives)"};
  const int width_px = std::max(options.width_px, 320);
  // The text is sized for the width, as the trace figures are: a 1600-pixel figure at the window's sizes.
  const double font_scale = std::max(1.0, width_px / 1200.0);
  const Theme theme = options.dark ? dark_theme(font_scale) : light_theme(font_scale);
  QWidget figure;
  figure.setAutoFillBackground(true);
  QPalette palette = figure.palette();
  palette.setColor(QPalette::Window, theme.background);
  palette.setColor(QPalette::WindowText, theme.text);
  figure.setPalette(palette);
  auto* layout = new QVBoxLayout(&figure);
  auto* title = new QLabel(title_of(*run, options.columns), &figure);
  title->setFont(theme.font(12, true));
  auto* canvas = new RanksCanvas(&figure);
  canvas->set_theme(theme);
  canvas->set_run(run);
  canvas->set_colour(options.colour);
  canvas->set_by_lateness(options.by_lateness);
  canvas->set_column_kind(options.columns);
  const QString order = options.by_lateness ? QObject::tr(
                                                  "Ranks by lateness (the others' wait for them over the run, "
                                                  "longest first).")
                                            : QObject::tr("Ranks in rank order.");
  auto* caption = new QLabel(
      headline_of(*run) + QStringLiteral(" ") + order + QStringLiteral(" ") + canvas->columns_meaning() +
          QStringLiteral(" ") +
          QObject::tr("Clocks aligned by the %1.").arg(QString::fromStdString(run->report.summary.clock.method)),
      &figure);
  caption->setWordWrap(true);
  caption->setFont(theme.font(9));
  layout->addWidget(title);
  layout->addWidget(canvas, 1);
  layout->addWidget(caption);
  int height_px = options.height_px;
  if (height_px <= 0) {
    const std::size_t rows = run->report.stragglers.ranks.size();
    // Tall enough for every rank at a pixel or more, and no taller than the grid needs.
    const int grid_h = static_cast<int>(std::clamp<std::size_t>(rows * 16, 300, std::max<std::size_t>(rows, 700)));
    height_px = grid_h + 220 * static_cast<int>(theme.font_scale);
  } else {
    // The canvas keeps at least 200 pixels: the title and the caption at their heights for this width take the rest.
    const int text_h = title->sizeHint().height() + caption->heightForWidth(width_px - 24) + 40;
    height_px = std::max(height_px, text_h + 200);
  }
  figure.resize(width_px, height_px);
  figure.ensurePolished();
  layout->activate();
  return export_widget(figure, path, options.scale);
}

}  // namespace gtv::ui
