// Offscreen replot benchmark of the timeline: full view of 1M and 10M events at 1920x1080, and a zoomed-in view,
// each drawn as the window draws it (the analysis rows too: the GPUs-busy strip, the idle rows, the critical path).
// Prints the median over repeated replots. Usage: see kUsage.
// With --recordings FILE...: each recording opened as the window opens it (analysis overlays, first view), then the
// median replot at fit and of the keyboard steps (zoom in W, zoom out S, pan A and D) from fit.
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "gtv/io/trace_file.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/lane_plottable.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/trace_document.h"
#include "gtv/ui/work_owner.h"
#include "synthetic_trace.h"

namespace {

using namespace gtv;
using namespace gtv::ui;

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Timing {
  double wall_ms = 0;  // median wall time
  double cpu_ms = 0;   // median thread CPU time: less disturbed when other processes share the cores
};

Timing median_replot(TimelineView& view, int repeats) {
  std::vector<double> wall, cpu;
  view.replot_now();  // warm caches (fonts, buffers)
  for (int i = 0; i < repeats; ++i) {
    QElapsedTimer timer;
    timer.start();
    const double cpu0 = thread_cpu_ms();
    view.replot_now();
    cpu.push_back(thread_cpu_ms() - cpu0);
    wall.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

void run(std::size_t events, int repeats) {
  QElapsedTimer build;
  build.start();
  auto trace = std::make_shared<const Trace>(bench::synthetic_trace(events));
  const double build_ms = static_cast<double>(build.nsecsElapsed()) / 1e6;
  TimelineView view;
  view.resize(1920, 1080);
  view.set_trace(trace);
  view.replot_now();
  const Timing lanes_only = median_replot(view, repeats);
  // As the window shows it: the analysis's rows (busy strip, idle rows, critical path) with the lanes.
  QElapsedTimer analyse;
  analyse.start();
  const DocumentAnalysis analysis = analyse_document(*trace);
  const double analyse_ms = static_cast<double>(analyse.nsecsElapsed()) / 1e6;
  view.set_overlays(analysis.overlays);
  view.set_color_mode(ColorMode::KernelName);
  view.fit();
  const Timing full = median_replot(view, repeats);
  const std::size_t full_spans = view.lanes_plottable()->last_span_count();
  // Coloured by owner: three models taking turns in runs of 64 kernels, so merged blocks are often mixed.
  OverlayData owned = analysis.overlays;
  owned.owners = std::make_shared<const WorkOwners>(bench::synthetic_owners(*trace, 3, 64));
  view.set_overlays(owned);
  view.set_color_mode(ColorMode::Owner);
  const Timing by_owner = median_replot(view, repeats);
  view.set_color_mode(ColorMode::KernelName);
  // The analysis rows at their densest: the GPUs-busy count changing at every kernel's end (one step per GPU event)
  // and a critical path of as many stretches, alternating kinds, as a trace whose GPUs take turns has.
  OverlayData dense = analysis.overlays;
  const std::size_t steps = events / 2;
  const TimeNs step_ns = std::max<TimeNs>(1, (trace->end_ns() - trace->start_ns()) / static_cast<TimeNs>(steps));
  dense.busy_gpus.clear();
  dense.critical_path.stretches.clear();
  for (std::size_t i = 0; i < steps; ++i) {
    const TimeNs t = trace->start_ns() + static_cast<TimeNs>(i) * step_ns;
    dense.busy_gpus.push_back({t, 1 + static_cast<int>(i % 3 == 0)});
    dense.critical_path.stretches.push_back({t, t + step_ns, static_cast<int>(i % 4), std::nullopt, -1});
  }
  dense.busy_gpus.push_back({trace->start_ns() + static_cast<TimeNs>(steps) * step_ns, 0});
  dense.gpu_count = 2;
  view.set_overlays(dense);
  view.fit();
  const Timing dense_rows = median_replot(view, repeats);
  view.set_overlays(analysis.overlays);
  const TimeNs mid = (trace->start_ns() + trace->end_ns()) / 2;
  view.set_window({mid, mid + 200'000});  // 200 us: every event is several pixels wide
  const Timing zoom = median_replot(view, repeats);
  const std::size_t zoom_spans = view.lanes_plottable()->last_span_count();
  std::printf(
      "%9zu events, %zu lanes (built in %.0f ms, analysed in %.0f ms: %zu busy steps, %zu idle intervals, %zu "
      "critical-path stretches)\n"
      "  full view, lanes only:      median %.2f ms wall, %.2f ms CPU\n"
      "  full view, analysis rows:   median %.2f ms wall, %.2f ms CPU (%zu spans)\n"
      "  zoomed 200 us:              median %.2f ms wall, %.2f ms CPU (%zu spans)\n"
      "  full, by owner:             median %.2f ms wall, %.2f ms CPU\n"
      "  full, %zu busy steps and %zu critical-path stretches: median %.2f ms wall, %.2f ms CPU\n",
      trace->event_count(), trace->lanes().size(), build_ms, analyse_ms, analysis.overlays.busy_gpus.size(),
      analysis.overlays.idle.size(), analysis.overlays.critical_path.stretches.size(), lanes_only.wall_ms,
      lanes_only.cpu_ms, full.wall_ms, full.cpu_ms, full_spans, zoom.wall_ms, zoom.cpu_ms, zoom_spans, by_owner.wall_ms,
      by_owner.cpu_ms, dense.busy_gpus.size(), dense.critical_path.stretches.size(), dense_rows.wall_ms,
      dense_rows.cpu_ms);
  std::fflush(stdout);
  view.set_trace(nullptr);
  trace.reset();
  // The same events with the recorded structure of a recording: range rows and counter rows, coloured by owner.
  auto structured = std::make_shared<const Trace>(bench::synthetic_trace(events, 2, 4, 4, true));
  view.set_trace(structured);
  OverlayData structured_owned = analyse_document(*structured).overlays;
  structured_owned.owners = std::make_shared<const WorkOwners>(bench::synthetic_owners(*structured, 3, 64));
  view.set_overlays(structured_owned);
  view.set_color_mode(ColorMode::Owner);
  view.fit();
  const Timing rows = median_replot(view, repeats);
  std::printf("  full, by owner, analysis rows, %zu ranges and %zu counter rows: median %.2f ms wall, %.2f ms CPU\n",
              structured->ranges().size(), structured->counters().size(), rows.wall_ms, rows.cpu_ms);
}

// Open a file to first paint: read + analyse (as TraceDocument does in its worker, the progress telling the two
// apart), then lay out and draw.
void open_to_first_paint(std::size_t events) {
  QTemporaryDir dir;
  const QString path = dir.filePath("synthetic.json.gz");
  if (!io::write_trace(bench::synthetic_trace(events), path.toStdString()).ok()) return;
  QElapsedTimer timer;
  timer.start();
  double read_ms = 0;
  const LoadResult loaded = load_trace_file(path, [&](double fraction) {
    if (fraction == kAnalysingProgress) read_ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    return true;
  });
  const double load_ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  TimelineView view;
  view.resize(1920, 1080);
  view.set_trace(loaded.trace);
  if (loaded.analysis) view.set_overlays(loaded.analysis->overlays);
  view.replot_now();
  std::printf("open %zu-event .json.gz to first paint: %.0f ms (read %.0f ms, analysis %.0f ms, draw %.0f ms)\n",
              loaded.trace->event_count(), static_cast<double>(timer.nsecsElapsed()) / 1e6, read_ms, load_ms - read_ms,
              static_cast<double>(timer.nsecsElapsed()) / 1e6 - load_ms);
  std::fflush(stdout);
}

// A recording as the window shows it: the steps a user takes from the fitted view, each replotted.
void recording(const QString& path, int repeats) {
  const LoadResult loaded = load_trace_file(path);
  if (!loaded.trace) {
    std::printf("%s: %s\n", qPrintable(path), qPrintable(loaded.error));
    return;
  }
  TimelineView view;
  view.resize(1920, 1080);
  view.show();
  view.set_trace(loaded.trace);
  if (loaded.analysis) view.set_overlays(loaded.analysis->overlays);
  view.fit();
  const TimeWindow fitted = view.window();
  const Timing at_fit = median_replot(view, repeats);
  // Each step starts from the fitted view so the medians compare like with like.
  const auto step = [&](auto&& action) {
    std::vector<double> wall;
    for (int i = 0; i < repeats; ++i) {
      view.set_window(fitted);
      view.replot_now();
      QElapsedTimer timer;
      timer.start();
      action();
      view.replot_now();
      wall.push_back(static_cast<double>(timer.nsecsElapsed()) / 1e6);
    }
    std::sort(wall.begin(), wall.end());
    return wall[wall.size() / 2];
  };
  const double zoom_in = step([&] { view.zoom_by(1.5); });
  const double zoom_out_ms = step([&] { view.zoom_by(1 / 1.5); });
  const double pan = step([&] { view.pan_by_px(0.2 * 1920); });
  std::printf("%-44s %8zu events  fit %6.2f ms wall %6.2f ms CPU  W %6.2f  S %6.2f  A/D %6.2f ms\n",
              qPrintable(QFileInfo(path).dir().dirName() + "/" + QFileInfo(path).fileName()),
              loaded.trace->event_count(), at_fit.wall_ms, at_fit.cpu_ms, zoom_in, zoom_out_ms, pan);
  std::fflush(stdout);
}

}  // namespace

constexpr const char* kUsage =
    "Usage: gtv_ui_replot_bench [--quick] | --recordings FILE... | --open EVENTS | --help\n"
    "Times the timeline's replot offscreen at 1920x1080 and prints medians (wall and thread CPU ms).\n"
    "  (none)         1M and 10M synthetic events, 30 replots each: lanes only, then with the analysis rows\n"
    "                 (GPUs-busy strip, idle rows, critical path) at fit, zoomed to 200 us and coloured by owner;\n"
    "                 then opening a 1M-event file to its first paint\n"
    "  --quick        1M events only, GTV_BENCH_REPEATS replots (default 5)\n"
    "  --recordings   each FILE opened as the window opens it: fit, then W, S and A/D steps from fit\n"
    "                 (GTV_BENCH_REPEATS replots, default 15)\n"
    "  --open EVENTS  writes a synthetic .json.gz of EVENTS events and opens it to its first paint: read, analysis\n"
    "                 and draw timed apart\n";

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const bool help = std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0;
    const bool known = help || std::strcmp(argv[i], "--quick") == 0 || std::strcmp(argv[i], "--recordings") == 0 ||
                       std::strcmp(argv[i], "--open") == 0;
    const bool operand = std::strcmp(argv[1], "--recordings") == 0 || (std::strcmp(argv[1], "--open") == 0 && i == 2);
    if (help || (!known && !operand)) {
      std::fputs(kUsage, help ? stdout : stderr);
      if (!help) std::fprintf(stderr, "gtv_ui_replot_bench: unknown argument '%s'\n", argv[i]);
      return help ? 0 : 2;
    }
  }
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "--recordings") == 0) {
    const int repeats =
        qEnvironmentVariableIntValue("GTV_BENCH_REPEATS") > 0 ? qEnvironmentVariableIntValue("GTV_BENCH_REPEATS") : 15;
    std::printf("gtv timeline replot of recordings at 1920x1080 (%s platform), median of %d\n",
                qPrintable(QGuiApplication::platformName()), repeats);
    for (int i = 2; i < argc; ++i) recording(QString::fromLocal8Bit(argv[i]), repeats);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--open") == 0) {
    const long long events = argc > 2 ? std::atoll(argv[2]) : 0;
    if (events <= 0) {
      std::fputs(kUsage, stderr);
      std::fprintf(stderr, "gtv_ui_replot_bench: --open needs a positive number of events\n");
      return 2;
    }
    open_to_first_paint(static_cast<std::size_t>(events));
    return 0;
  }
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int quick_repeats =
      qEnvironmentVariableIntValue("GTV_BENCH_REPEATS") > 0 ? qEnvironmentVariableIntValue("GTV_BENCH_REPEATS") : 5;
  std::printf("gtv timeline replot, offscreen, 1920x1080, median of %d\n", quick ? quick_repeats : 30);
  run(1'000'000, quick ? quick_repeats : 30);
  if (!quick) run(10'000'000, 30);
  open_to_first_paint(1'000'000);
  return 0;
}
