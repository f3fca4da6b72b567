// QtTest (offscreen): the window shows the one analysis::Report, the same one `gtv-cli analyze` prints (its
// verdict lines, its full text with host blocking, idle causes and the tracing cost), and the overlays are drawn
// from it exactly: warm-up bands are the spans of the calls involved, idle intervals carry their cause.
#include <qcustomplot.h>

#include <QTableWidget>
#include <QTextBrowser>
#include <QtTest/QtTest>
#include <algorithm>
#include <map>

#include "gtv/analysis/report.h"
#include "gtv/config.h"
#include "gtv/io/trace_file.h"
#include "gtv/ui/band_rows.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/main_window.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/side_panels.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/trace_tab.h"
#include "test_traces.h"

using namespace gtv;
using namespace gtv::ui;

namespace {

QString recording(const char* name) {
  return QStringLiteral(GTV_SOURCE_DIR "/resources/traces/h200x2/%1.json.gz").arg(QLatin1String(name));
}

// Every band is one span of one finding, and every span of every finding is one band: no band covers the time
// between the calls of a finding.
bool bands_are_the_spans(const OverlayData& o, const analysis::WarmUp& warmup, QString* why) {
  std::vector<std::pair<TimeNs, TimeNs>> spans;
  for (const auto& f : warmup.findings)
    for (const auto& s : f.spans) spans.emplace_back(s.start_ns, s.end_ns);
  std::vector<std::pair<TimeNs, TimeNs>> bands;
  for (const ShadedSegment& b : o.warmup) bands.emplace_back(b.start_ns, b.end_ns);
  std::sort(spans.begin(), spans.end());
  std::sort(bands.begin(), bands.end());
  if (spans == bands) return true;
  *why = QStringLiteral("%1 bands for %2 spans").arg(bands.size()).arg(spans.size());
  return false;
}

// A report by hand: GPU 0 and 1 busy; module loading for GPU 1 in two calls 5 ms apart; GPU 1 idle 4.43 ms while
// the host was blocked in a pageable copy, then 1 ms waiting on another stream.
analysis::Report synthetic_report() {
  analysis::Report r;
  analysis::WarmUpFinding f;
  f.cause = analysis::WarmUpCause::ModuleLoading;
  f.device = 1;
  f.count = 2;
  f.first_call = "cuModuleLoadData";
  f.spans = {{10'000, 12'000}, {17'000, 18'000}};
  f.start_ns = 10'000;
  f.end_ns = 18'000;
  f.cost_ns = 3'000;
  r.warmup.findings.push_back(f);
  r.idle.gpus = {{0, 60'000, 0, "GPU 0"}, {1, 20'000, 5'430'000, "GPU 1"}};
  r.idle.intervals.push_back(
      {1, 100'000, 4'530'000, analysis::IdleCause::HostBlocked, "cudaMemcpyAsync to pageable memory"});
  r.idle.intervals.push_back({1, 4'530'000, 5'530'000, analysis::IdleCause::WaitingOnDependency, ""});
  return r;
}

// 10 ms long, so the synthetic report's intervals lie inside it: a host op [0, 10 ms), a kernel on GPU 1 at the end.
Trace ten_ms_trace() {
  TraceBuilder b;
  const LaneIndex host = b.lane(host_lane_key(test::kPid, test::kTid));
  const LaneIndex gpu1 = b.lane(gpu_lane_key(1, 7));
  Event op;
  op.duration_ns = 10'000'000;
  op.kind = EventKind::CpuOp;
  op.name = b.intern("forward");
  b.add_event(host, op);
  Event k;
  k.start_ns = 9'000'000;
  k.duration_ns = 1'000'000;
  k.kind = EventKind::Kernel;
  k.name = b.intern("k");
  b.add_event(gpu1, k);
  return std::move(b.build().value());
}

}  // namespace

class ReportViewTest : public QObject {
  Q_OBJECT

 private slots:
  void windowShowsTheCliReport();
  void overlaysAreTheReportsSpansAndIntervals();
  void idleRowsAreColouredByCauseWithTooltips();
  void bandsAreRowsAboveAndBelowTheLanes();
  void summaryWithoutVerdictSaysSo();
};

void ReportViewTest::windowShowsTheCliReport() {
  const QString path = recording("copy-pageable");
  MainWindow window;
  TraceTab* tab = window.open_file(path);
  QVERIFY(tab != nullptr);
  tab->document()->wait();
  QTRY_VERIFY(tab->view()->trace() != nullptr);
  const auto document = tab->document()->analysis();
  QVERIFY(document != nullptr);

  // What `gtv-cli analyze` prints: format_report(analyze(trace)).
  auto trace = io::read_trace(path.toStdString());
  QVERIFY(trace);
  const analysis::Report cli = analysis::analyze(trace.value());
  const std::string cli_text = analysis::format_report(cli, analysis::Format::Text);
  QVERIFY(!cli.verdict.empty());
  QCOMPARE(document->report().verdict, cli.verdict);
  QCOMPARE(document->report_text, cli_text);

  // The Summary panel: the verdict lines first, in order, then the report with every section.
  const QString summary = tab->summary()->toPlainText();
  qsizetype at = 0;
  for (const std::string& line : cli.verdict) {
    const qsizetype found = summary.indexOf(QString::fromStdString(line), at);
    QVERIFY2(found >= 0, line.c_str());
    at = found + 1;
  }
  const qsizetype report_at = summary.indexOf(QStringLiteral("Report"));
  QVERIFY(report_at > 0);
  QVERIFY(summary.indexOf(QString::fromStdString(cli.verdict.front())) < report_at);
  for (const char* section : {"Host blocking", "Why the GPUs were idle", "Tracing cost"})
    QVERIFY2(summary.indexOf(QLatin1String(section), report_at) > report_at, section);
  QVERIFY(!cli.tracing.line.empty());
  QVERIFY(summary.contains(QString::fromStdString(cli.tracing.line)));
  for (const std::string& line : cli.blocking.findings)
    QVERIFY2(summary.contains(QString::fromStdString(line)), line.c_str());
  for (const std::string& line : cli.idle.lines) QVERIFY2(summary.contains(QString::fromStdString(line)), line.c_str());

  // The kernel table is the report's table.
  QCOMPARE(tab->kernels()->table()->rowCount(), static_cast<int>(cli.kernels.kernels.size()));

  // The overlays come from the same report: warm-up bands are exactly the findings' spans, idle rows its intervals.
  QString why;
  QVERIFY2(bands_are_the_spans(document->overlays, cli.warmup, &why), qPrintable(why));
  QCOMPARE(document->overlays.idle.size(), cli.idle.intervals.size());
  QCOMPARE(document->overlays.brackets.empty(), cli.timing.measurements.empty());
}

void ReportViewTest::overlaysAreTheReportsSpansAndIntervals() {
  const Trace trace = test::small_trace();
  const analysis::Report report = synthetic_report();
  const OverlayData o = overlays_of(trace, report);
  // Two bands, one per call: the 5 ms between them is not warm-up.
  QCOMPARE(o.warmup.size(), std::size_t{2});
  QCOMPARE(o.warmup[0].start_ns, TimeNs{10'000});
  QCOMPARE(o.warmup[0].end_ns, TimeNs{12'000});
  QCOMPARE(o.warmup[1].start_ns, TimeNs{17'000});
  QCOMPARE(o.warmup[1].end_ns, TimeNs{18'000});
  const std::string cause(analysis::to_string(analysis::WarmUpCause::ModuleLoading));
  QCOMPARE(o.warmup[0].label, "warm-up: " + cause + " (GPU 1)");
  QVERIFY(o.warmup[0].tooltip.find("cuModuleLoadData") != std::string::npos);
  QString why;
  QVERIFY2(bands_are_the_spans(o, report.warmup, &why), qPrintable(why));

  QCOMPARE(o.idle.size(), std::size_t{2});
  QCOMPARE(o.idle_devices, (std::vector<std::int64_t>{0, 1}));
  QCOMPARE(o.idle[0].tooltip,
           "GPU 1 idle 4.43 ms: " + std::string(analysis::to_string(analysis::IdleCause::HostBlocked)) +
               " (cudaMemcpyAsync to pageable memory)");
  QCOMPARE(o.idle[1].tooltip,
           "GPU 1 idle 1.00 ms: " + std::string(analysis::to_string(analysis::IdleCause::WaitingOnDependency)));
  QCOMPARE(o.idle_cause_names.size(), static_cast<std::size_t>(analysis::kIdleCauseCount));

  // Hit tests: inside a span, between the spans (nothing), on a GPU without idle time (nothing).
  QVERIFY(warmup_at(o, 11'000, 0) == &o.warmup[0]);
  QVERIFY(warmup_at(o, 15'000, 100) == nullptr);
  QVERIFY(idle_band_at(o, 1, 5'000'000, 0) == &o.idle[1]);
  QVERIFY(idle_band_at(o, 0, 5'000'000, 1000) == nullptr);
}

void ReportViewTest::idleRowsAreColouredByCauseWithTooltips() {
  auto trace = std::make_shared<const Trace>(ten_ms_trace());
  TimelineView view;
  view.resize(1000, 500);
  view.set_trace(trace);
  const OverlayData o = overlays_of(*trace, synthetic_report());
  view.set_overlays(o);
  view.set_window({0, 6'000'000});
  view.replot_now();
  const QRectF lanes = view.lane_rect();
  const double x_ns = lanes.width() / 6'000'000.0;
  // Two idle rows under the lanes (GPU 0, GPU 1), 15 px each at font scale 1: GPU 1's is the bottom one.
  const double y_row1 = view.plot()->axisRect()->rect().bottom() - 7.5;
  QVERIFY(y_row1 > lanes.bottom());
  const QPointF blocked(lanes.left() + 2'000'000 * x_ns, y_row1);
  QCOMPARE(view.tooltip_at(blocked), QString::fromStdString(o.idle[0].tooltip));
  const QPointF waiting(lanes.left() + 5'000'000 * x_ns, y_row1);
  QCOMPARE(view.tooltip_at(waiting), QString::fromStdString(o.idle[1].tooltip));
  const QImage image = view.plot()->toPixmap(view.plot()->width(), view.plot()->height()).toImage();
  QCOMPARE(image.pixelColor(blocked.toPoint()).rgb() & 0xffffff,
           static_cast<QRgb>(idle_cause_color(static_cast<int>(analysis::IdleCause::HostBlocked))));
  QCOMPARE(image.pixelColor(waiting.toPoint()).rgb() & 0xffffff,
           static_cast<QRgb>(idle_cause_color(static_cast<int>(analysis::IdleCause::WaitingOnDependency))));
  QVERIFY(idle_cause_color(static_cast<int>(analysis::IdleCause::HostBlocked)) !=
          idle_cause_color(static_cast<int>(analysis::IdleCause::WaitingOnDependency)));
  // A warm-up span where no event is drawn: its tooltip names the cause.
  view.set_window({0, 40'000});
  view.replot_now();
  const double x2 = view.lane_rect().width() / 40'000.0;
  const QPointF warm(view.lane_rect().left() + 11'000 * x2, view.lane_rect().bottom() - 3);
  QVERIFY2(view.tooltip_at(warm).startsWith(QStringLiteral("warm-up: ")), qPrintable(view.tooltip_at(warm)));
  const QPointF between(view.lane_rect().left() + 15'000 * x2, view.lane_rect().bottom() - 3);
  QVERIFY(view.tooltip_at(between).isEmpty());
}

// The brackets and the idle rows are rows of the view placed above and below the lanes by their RowDesc, in no lane
// group; what the view's tooltip says over them is what each row says through the row interface.
void ReportViewTest::bandsAreRowsAboveAndBelowTheLanes() {
  auto trace = std::make_shared<const Trace>(ten_ms_trace());
  TimelineView view;
  view.resize(1000, 500);
  view.set_trace(trace);
  OverlayData o = overlays_of(*trace, synthetic_report());
  o.brackets.push_back({1'000'000, 3'000'000, "first matmul", "stopwatch 2.00 ms", 0, "stopwatch: host time"});
  view.set_overlays(o);
  view.set_window({0, 6'000'000});
  view.replot_now();
  const TimelineState& st = view.state();
  const QRectF axis = view.plot()->axisRect()->rect();
  const QRectF lanes = view.lane_rect();
  std::map<std::string, std::size_t> band_rows;
  for (std::size_t i = 0; i < st.rows.size(); ++i)
    if (const RowDesc d = st.rows[i]->desc(); is_band(d.place)) band_rows[d.id] = i;
  QVERIFY(band_rows.count(kBracketRowId) == 1 && band_rows.count(kIdleRowId) == 1);
  QCOMPARE(st.rows[band_rows[kBracketRowId]]->desc().place, RowPlace::AboveLanes);
  QCOMPARE(st.rows[band_rows[kIdleRowId]]->desc().place, RowPlace::BelowLanes);
  for (const LaneRow& r : st.layout.rows()) QVERIFY(r.kind != RowKind::Row || !is_band(st.rows[r.row]->desc().place));
  const std::optional<QRectF> brackets = st.band_rect(axis, kBracketRowId);
  const std::optional<QRectF> idle = st.band_rect(axis, kIdleRowId);
  QVERIFY(brackets && idle);
  QCOMPARE(brackets->bottom(), lanes.top());
  QVERIFY(idle->top() >= lanes.bottom());
  QCOMPARE(idle->bottom(), axis.bottom());
  const TimeMapping map(view.window(), lanes.width());
  // A point in a band as the row sees it.
  const auto hit_at = [&](const QRectF& band, const std::string& id, QPointF pos, int depth) {
    RowHit hit;
    hit.t_ns = map.time_at(pos.x() - band.left());
    hit.depth = depth;
    hit.ns_per_px = map.ns_per_px();
    hit.origin_ns = trace->start_ns();
    hit.window = view.window();
    hit.width_px = band.width();
    hit.pos_px = pos;
    hit.rect = band;
    hit.depth_rows = st.bands.rows[*st.band_index(id)].depth_rows;
    hit.state = &st;
    return st.rows[band_rows[id]]->tooltip_under(hit);
  };
  // On the bracket's line, in its first row: its label and every word of it.
  const QPointF on_bracket(lanes.left() + map.x_of(2'000'000), brackets->top() + 3);
  const QString bracket_tip = QStringLiteral("first matmul \u2014 stopwatch 2.00 ms\nstopwatch: host time");
  QCOMPARE(view.tooltip_at(on_bracket), bracket_tip);
  QCOMPARE(hit_at(*brackets, kBracketRowId, on_bracket, 0), bracket_tip);
  QVERIFY(view.tooltip_at(QPointF(lanes.left() + map.x_of(5'000'000), brackets->top() + 3)).isEmpty());
  // GPU 1's idle row, the second depth row of the idle band: its interval's words.
  const QPointF blocked(lanes.left() + map.x_of(2'000'000), idle->bottom() - 7.5);
  const IdleBand* band = idle_band_at(st.overlays, 1, 2'000'000, 0);
  QVERIFY(band != nullptr);
  QCOMPARE(view.tooltip_at(blocked), QString::fromStdString(band->tooltip));
  QCOMPARE(hit_at(*idle, kIdleRowId, blocked, 1), QString::fromStdString(band->tooltip));
}

void ReportViewTest::summaryWithoutVerdictSaysSo() {
  const Trace trace = test::small_trace();
  DocumentAnalysis empty;
  const QString html = summary_html(trace, empty);
  QVERIFY(html.contains(QStringLiteral("Nothing to say")));
  const DocumentAnalysis d = analyse_document(trace);
  QCOMPARE(d.report().verdict, analysis::analyze(trace).verdict);
  QVERIFY(summary_html(trace, d).contains(QString::fromStdString(d.report_text).toHtmlEscaped()));
}

QTEST_MAIN(ReportViewTest)
#include "report_view_test.moc"
