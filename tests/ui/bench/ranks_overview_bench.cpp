// Offscreen benchmark of the ranks overview: a generated run of N ranks x C all-reduces (generated_summaries.h)
// reduced (gtv::ranks::reduce, wall-clock alignment), then the overview drawn as the window draws it at WxH: the
// cell image alone (per-pixel aggregation, render_cells) and the whole frame (cells, labels, axis, legend), in both
// colours and both orders, zoomed to a tenth of the columns, with a column per collective and per step (each
// all-reduce ends a ProfilerStep). Prints the median and the largest of R frames, and the time to build each grid.
//
//   gtv_ui_ranks_bench [--ranks N] [--collectives C] [--size WxH] [--repeats R] [--write DIR]
//
// --write DIR also writes the N summaries there as rankNNNNNN.gtvsum (for gtv DIR, or gtv --export OUT DIR).
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "generated_summaries.h"
#include "gtv/ranks/reduce.h"
#include "gtv/ranks/summary_file.h"
#include "gtv/ui/ranks_overview.h"

namespace {

using namespace gtv;
using namespace gtv::ui;

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Stat {
  double median_ms = 0;
  double max_ms = 0;
};

Stat stat(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.back()};
}

// One frame: the cells rebuilt (the canvas is told its colour or order changed) and the whole widget painted.
struct Frames {
  Stat cells, whole, whole_cpu;
};

Frames frames(RanksCanvas& canvas, int repeats) {
  std::vector<double> cells, whole, cpu;
  QImage target(canvas.size(), QImage::Format_ARGB32_Premultiplied);
  for (int i = 0; i < repeats + 1; ++i) {
    canvas.set_colour(canvas.colour());  // marks the cell image stale, as a change of view does
    QElapsedTimer timer;
    timer.start();
    const double cpu0 = thread_cpu_ms();
    canvas.render(&target);
    const double ms = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    if (i == 0) continue;  // warm: fonts, buffers
    cpu.push_back(thread_cpu_ms() - cpu0);
    whole.push_back(ms);
    cells.push_back(canvas.last_render_ms());
  }
  return {stat(cells), stat(whole), stat(cpu)};
}

}  // namespace

int main(int argc, char** argv) {
  testing::SummarySpec spec;
  int width = 1600, height = 1000, repeats = 30;
  std::string write_dir;
  for (int i = 1; i < argc; ++i) {
    const bool v = i + 1 < argc;
    if (std::strcmp(argv[i], "--ranks") == 0 && v) {
      spec.ranks = std::max(2, std::atoi(argv[++i]));
      spec.straggler = std::min(spec.straggler, spec.ranks - 1);
      spec.sometimes_late = std::min(spec.sometimes_late, spec.ranks - 1);
    } else if (std::strcmp(argv[i], "--collectives") == 0 && v) {
      spec.collectives = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--size") == 0 && v && std::sscanf(argv[++i], "%dx%d", &width, &height) == 2) {
    } else if (std::strcmp(argv[i], "--repeats") == 0 && v) {
      repeats = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--write") == 0 && v) {
      write_dir = argv[++i];
    } else {
      std::fprintf(
          stderr, "usage: gtv_ui_ranks_bench [--ranks N] [--collectives C] [--size WxH] [--repeats R] [--write DIR]\n");
      return 2;
    }
  }
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QElapsedTimer timer;
  timer.start();
  std::vector<ranks::RankSummary> summaries = testing::generated_summaries(spec);
  const double generate_ms = static_cast<double>(timer.restart());
  if (!write_dir.empty()) {
    std::filesystem::create_directories(write_dir);
    for (const ranks::RankSummary& s : summaries) {
      char name[32];
      std::snprintf(name, sizeof name, "rank%06lld.gtvsum", static_cast<long long>(s.distributed.rank));
      if (const Status st = ranks::write_summary_file({&s, 1}, (std::filesystem::path(write_dir) / name).string());
          !st) {
        std::fprintf(stderr, "gtv_ui_ranks_bench: %s\n", st.error().message.c_str());
        return 1;
      }
    }
    std::fprintf(stderr, "wrote %zu summaries to %s\n", summaries.size(), write_dir.c_str());
  }
  timer.restart();
  Expected<ranks::RankReport> report = ranks::reduce(summaries);
  const double reduce_ms = static_cast<double>(timer.restart());
  if (!report) {
    std::fprintf(stderr, "gtv_ui_ranks_bench: %s\n", report.error().message.c_str());
    return 1;
  }
  auto run = std::make_shared<RanksRun>();
  run->title = "generated";
  run->report = std::move(report).value();
  run->rank_files.assign(run->report.stragglers.ranks.size(), std::string());
  run->shift_ns.assign(run->report.stragglers.ranks.size(), 0);
  RanksCanvas canvas;
  canvas.resize(width, height);
  canvas.set_run(run);
  const double grid_ms = static_cast<double>(timer.restart());
  canvas.set_column_kind(RanksColumns::Steps);
  const double step_grid_ms = static_cast<double>(timer.restart());
  const QRect cells = canvas.cells_rect();
  std::printf(
      "%d ranks x %zu collectives, %zu steps (generated in %.0f ms, reduced in %.0f ms, collective grid built in "
      "%.0f ms, step grid in %.0f ms); canvas %dx%d, cells %dx%d; median and largest of %d frames\n\n",
      spec.ranks, run->report.stragglers.collectives.size(), run->report.step_paths.steps.size(), generate_ms,
      reduce_ms, grid_ms, step_grid_ms, width, height, cells.width(), cells.height(), repeats);
  std::printf(
      "| view | cells: median | whole frame: median | whole frame: median CPU | whole frame: largest |\n"
      "|---|---:|---:|---:|---:|\n");
  struct View {
    const char* name;
    RanksColour colour;
    bool lateness;
    bool zoomed;
    RanksColumns columns;
  };
  constexpr RanksColumns kCollectives = RanksColumns::Collectives;
  constexpr RanksColumns kSteps = RanksColumns::Steps;
  const View views[] = {{"others' wait, rank order", RanksColour::Caused, false, false, kCollectives},
                        {"others' wait, by lateness", RanksColour::Caused, true, false, kCollectives},
                        {"own wait, rank order", RanksColour::Waited, false, false, kCollectives},
                        {"own wait, by lateness", RanksColour::Waited, true, false, kCollectives},
                        {"others' wait, a tenth of the collectives", RanksColour::Caused, false, true, kCollectives},
                        {"steps: others' wait, rank order", RanksColour::Caused, false, false, kSteps},
                        {"steps: others' wait, by lateness", RanksColour::Caused, true, false, kSteps},
                        {"steps: own wait, rank order", RanksColour::Waited, false, false, kSteps},
                        {"steps: own wait, by lateness", RanksColour::Waited, true, false, kSteps},
                        {"steps: own wait, a tenth of the steps", RanksColour::Waited, false, true, kSteps}};
  for (const View& v : views) {
    if (canvas.column_kind() != v.columns) canvas.set_column_kind(v.columns);
    canvas.set_colour(v.colour);
    canvas.set_by_lateness(v.lateness);
    const std::size_t c = canvas.grid().column_count;
    canvas.set_columns(v.zoomed ? c / 2 : 0, v.zoomed ? c / 2 + std::max<std::size_t>(1, c / 10) : c);
    const Frames f = frames(canvas, repeats);
    std::printf("| %s | %.2f ms | %.2f ms | %.2f ms | %.2f ms |\n", v.name, f.cells.median_ms, f.whole.median_ms,
                f.whole_cpu.median_ms, f.whole.max_ms);
  }
  return 0;
}
