#include "gtv/ui/figure_layout.h"

#include <gtest/gtest.h>

#include "gtv/model/trace_builder.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/legend.h"
#include "gtv/ui/overlay_data.h"

namespace gtv::ui {
namespace {

FigureMetrics metrics() {
  FigureMetrics m;
  m.width_px = 800;
  m.plot_needed_px = 500;
  m.title_px = 20;
  m.legend_item_widths_px = {120, 90, 300, 300, 300, 200};
  m.legend_item_breaks = {true, false, false, true, false, false};
  m.legend_item_px = 18;
  m.caption_line_px = 16;
  m.caption_lines = 2;
  return m;
}

void expect_apart(const FigureLayout& f) {
  EXPECT_FALSE(f.title.overlaps(f.plot));
  EXPECT_FALSE(f.legend.overlaps(f.plot));
  EXPECT_FALSE(f.caption.overlaps(f.plot));
  EXPECT_FALSE(f.caption.overlaps(f.legend));
  for (const Box& item : f.legend_items) {
    EXPECT_FALSE(item.overlaps(f.plot));
    EXPECT_GE(item.x, f.legend.x);
    EXPECT_LE(item.right(), f.legend.right() + 1e-9);
    EXPECT_GE(item.y, f.legend.y);
    EXPECT_LE(item.bottom(), f.legend.bottom() + 1e-9);
  }
  for (std::size_t i = 0; i < f.legend_items.size(); ++i)
    for (std::size_t j = i + 1; j < f.legend_items.size(); ++j)
      EXPECT_FALSE(f.legend_items[i].overlaps(f.legend_items[j])) << i << " " << j;
  EXPECT_GE(f.height_px, f.caption.bottom());
}

TEST(FigureLayout, TitlePlotLegendCaptionTopToBottomApart) {
  const FigureLayout f = layout_figure(metrics());
  expect_apart(f);
  EXPECT_LT(f.title.bottom(), f.plot.y);
  EXPECT_EQ(f.plot.h, 500);  // no limit: every lane
  EXPECT_LT(f.plot.bottom(), f.legend.y);
  EXPECT_LT(f.legend.bottom(), f.caption.y);
  ASSERT_EQ(f.legend_items.size(), 6u);
  EXPECT_EQ(f.legend_items[1].y, f.legend_items[0].y);  // an entry follows its group title on the row
  EXPECT_GT(f.legend_items[3].y, f.legend_items[2].y);  // a group title starts a row
  EXPECT_GT(f.legend_items[5].y, f.legend_items[4].y);  // wraps when the row is full (300+300+200 > 776)
}

TEST(FigureLayout, HeightIsAMaximumNotAPadding) {
  FigureMetrics m = metrics();
  m.max_height_px = 2000;  // taller than needed: the figure stays as short as its lanes
  const FigureLayout tall = layout_figure(m);
  EXPECT_EQ(tall.plot.h, 500);
  EXPECT_LT(tall.height_px, 700);
  EXPECT_EQ(tall.fit, FigureFit::Fits);
  EXPECT_EQ(figure_fit_note(tall, m.max_height_px), "");
}

// The lanes never give way to the text: a legend of a row per group gets compact first (its groups run on), and
// only then does the figure grow past the height asked, saying so.
TEST(FigureLayout, LanesNeverGiveWayTheLegendGetsCompactOrTheFigureGrows) {
  FigureMetrics m = metrics();
  m.legend_item_widths_px = {100, 80, 80, 100, 80, 100, 80};
  m.legend_item_breaks = {true, false, false, true, false, true, false};
  const FigureLayout laid_out = layout_figure(m);
  EXPECT_EQ(laid_out.legend.h, 3 * m.legend_item_px);  // a row per group
  m.max_height_px = laid_out.height_px - 1;
  const FigureLayout compact = layout_figure(m);
  expect_apart(compact);
  EXPECT_EQ(compact.plot.h, 500);
  EXPECT_EQ(compact.fit, FigureFit::CompactLegend);
  EXPECT_EQ(compact.legend.h, m.legend_item_px);  // 620 px of items in one 776 px row
  EXPECT_LE(compact.height_px, m.max_height_px);
  EXPECT_EQ(figure_fit_note(compact, m.max_height_px).rfind("legend set compact", 0), 0u);
  m.max_height_px = 300;  // less than the lanes alone: the figure grows
  const FigureLayout grown = layout_figure(m);
  expect_apart(grown);
  EXPECT_EQ(grown.plot.h, 500);
  EXPECT_EQ(grown.fit, FigureFit::Grown);
  EXPECT_GT(grown.height_px, 300);
  EXPECT_NE(figure_fit_note(grown, 300).find("more than the 300 px asked"), std::string::npos);
}

// Compact, a group's title never ends a row without its first entry beside it.
TEST(FigureLayout, CompactTitleKeepsItsFirstEntry) {
  FigureMetrics m = metrics();
  m.width_px = 424;  // 400 px inside the margins
  m.legend_item_widths_px = {100, 100, 50, 100, 150, 40, 60};
  m.legend_item_breaks = {true, false, false, true, false, true, false};
  m.max_height_px = 1;
  const FigureLayout f = layout_figure(m);
  ASSERT_EQ(f.legend_items.size(), 7u);
  EXPECT_EQ(f.legend.h, 2 * m.legend_item_px);          // three groups in two rows
  EXPECT_EQ(f.legend_items[3].y, f.legend_items[4].y);  // the title went to the next row with its entry
  EXPECT_GT(f.legend_items[3].y, f.legend_items[2].y);
  EXPECT_EQ(f.legend_items[5].y, f.legend_items[4].y);  // the next group runs on
}

TEST(FigureLayout, WrapsWordsNeverCuts) {
  auto measure = [](std::string_view s) { return static_cast<double>(s.size()) * 10; };
  const auto lines = wrap_words("the GPUs took turns: one worked while the other waited", 200, measure);
  ASSERT_GT(lines.size(), 1u);
  std::string joined;
  for (const auto& l : lines) {
    EXPECT_LE(measure(l), 200);
    joined += (joined.empty() ? "" : " ") + l;
  }
  EXPECT_EQ(joined, "the GPUs took turns: one worked while the other waited");
  EXPECT_EQ(wrap_words("supercalifragilistic x", 50, measure).front(), "supercalifragilistic");
  EXPECT_TRUE(wrap_words("", 50, measure).empty());
}

TEST(FigureLayout, TitleNamesTheGpus) {
  std::vector<DeviceInfo> devices(2);
  devices[0].name = devices[1].name = "NVIDIA H200";
  EXPECT_EQ(figure_title("sequential", devices), "sequential \u2014 2x NVIDIA H200");
  EXPECT_EQ(figure_title("trace", {}), "trace");
  // One of two GPUs did all the work: the title names what the trace used.
  devices[1].index = 1;
  EXPECT_EQ(figure_title("one_gpu", devices, {0}), "one_gpu \u2014 1x NVIDIA H200 (1 of the 2 GPUs recorded ran work)");
  EXPECT_EQ(figure_title("sequential", devices, {0, 1}), "sequential \u2014 2x NVIDIA H200");
  EXPECT_EQ(figure_title("idle", devices, {}), "idle \u2014 2x NVIDIA H200");
}

TEST(Legend, FigureListsOnlyWhatOccurs) {
  DocumentAnalysis analysis;
  OverlayData& o = analysis.overlays;
  o.idle_cause_names = {"host blocked", "host launching other", "host busy"};
  o.idle.push_back({0, 0, 10, 2, ""});
  o.brackets.push_back({0, 10, "loop", "stopwatch 1 ms", 0, ""});
  o.brackets.push_back({0, 20, "loop", "truth 2 ms", 3, ""});
  o.busy_gpus = {{0, 1}, {5, 2}, {8, 0}};
  o.gpu_count = 2;
  const Trace trace;
  LegendOptions present;
  present.only_present = true;
  std::vector<std::string> labels;
  for (const auto& g : legend_groups(trace, analysis, present))
    for (const auto& e : g.entries) labels.push_back(e.label);
  const std::vector<std::string> expected = {"1 GPU busy", "2 or more GPUs busy", "host busy", "measured by stopwatch",
                                             "truth: host start to the end of its GPU work"};
  EXPECT_EQ(labels, expected);
  // The Legend tab lists every colour, this trace's idle causes first.
  const auto all = legend_groups(trace, analysis, LegendOptions{});
  const auto idle =
      std::find_if(all.begin(), all.end(), [](const auto& g) { return g.title.find("idle") != std::string::npos; });
  ASSERT_NE(idle, all.end());
  EXPECT_EQ(idle->entries.size(), 3u);
  EXPECT_EQ(idle->entries.front().label, "host busy");
  EXPECT_EQ(idle->entries.front().color, idle_cause_color(2));
}

// Rows of one kind name their colours once: two GPUs' communication rows are one group, and two ranks' collective
// rows one group whose entries are both ranks' (only rank 1 has waits gtv does not count), between the idle causes
// and the brackets.
TEST(Legend, RowsOfOneKindShareAGroup) {
  DocumentAnalysis analysis;
  OverlayData& o = analysis.overlays;
  o.idle_cause_names = {"host blocked"};
  o.idle.push_back({0, 0, 10, 0, ""});
  o.brackets.push_back({0, 10, "loop", "stopwatch 1 ms", 0, ""});
  o.communication.resize(2);
  o.communication[1].device = 1;
  o.collectives.resize(2);
  o.collectives[0].parts.push_back({});
  o.collectives[1].rank = 1;
  o.collectives[1].parts.push_back({});
  o.collectives[1].parts.back().counted = false;
  const Trace trace;
  LegendOptions present;
  present.only_present = true;
  std::vector<std::string> titles;
  const auto groups = legend_groups(trace, analysis, present);
  for (const auto& g : groups) titles.push_back(g.title);
  const std::vector<std::string> expected = {
      "Why a GPU was idle (rows under the lanes; a pixel: the cause with most time)",
      "Communication (row under a GPU's lanes)", "Collectives (row under each rank)",
      "Measurements (brackets above the lanes)"};
  ASSERT_EQ(titles, expected);
  EXPECT_EQ(groups[1].entries.size(), 2u);
  ASSERT_EQ(groups[2].entries.size(), 4u);
  EXPECT_EQ(groups[2].entries.front().label, "waiting for a peer rank");
  EXPECT_EQ(groups[2].entries.back().label, "waits not counted (no root, clocks)");
}

// Kernels of the CNN recording, as its legend lists them: the qualified name with the template arguments that tell
// the two batch-norm kernels apart, no parameters; two layout kernels that differ only in a collapsed argument are
// numbered; the 1,684-character CUTLASS symbol the demangler refuses is named by its qualified name.
TEST(Legend, KernelsByTheirDisplayNames) {
  const std::string bn_params =
      "(float, float, float, float, cudnnTensorStruct, float const*, cudnnTensorStruct, "
      "float const*, cudnnTensorStruct, float*, float const*, float*, float*, float const*, "
      "float const*, float)";
  const std::string layout =
      "void cudnn::engines_precompiled::nchwToNhwcKernel<float, float, float, false, true, "
      "(cudnnKernelDataType_t)";
  const std::string layout_params = ">(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, float const*, float*)";
  const std::string cutlass = "_ZN17cutlass__5x_cudnn6KernelINS_4conv6kernel23ImplicitGemmConvolutionI" +
                              std::string(1100, 'S') + "EEEEEvNT_6ParamsE";
  const std::vector<std::string> names = {
      "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>" + bn_params,
      "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>" + bn_params, layout + "0" + layout_params,
      layout + "2" + layout_params, cutlass};
  TraceBuilder b;
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  TimeNs start_ns = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    Event k;
    k.start_ns = start_ns;
    k.duration_ns = static_cast<TimeNs>(1'000 * (names.size() - i));  // listed in this order: most time first
    k.kind = EventKind::Kernel;
    k.name = b.intern(names[i]);
    b.add_kernel(gpu, k, KernelDetail{});
    start_ns += k.duration_ns + 100;
  }
  const Trace trace = std::move(b.build().value());
  const DocumentAnalysis analysis = analyse_document(trace);
  const std::vector<LegendGroup> groups = legend_groups(trace, analysis, LegendOptions{});
  ASSERT_FALSE(groups.empty());
  ASSERT_EQ(groups.front().title, "Coloured by kernel name (most GPU time first)");
  std::vector<std::string> labels;
  for (const LegendEntry& e : groups.front().entries) labels.push_back(e.label);
  const std::vector<std::string> expected = {"cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>",
                                             "cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>",
                                             "cudnn::engines_precompiled::nchwToNhwcKernel<\u2026>",
                                             "cudnn::engines_precompiled::nchwToNhwcKernel<\u2026> [2]",
                                             "cutlass__5x_cudnn::Kernel<\u2026>"};
  EXPECT_EQ(labels, expected);
}

TEST(Legend, OverlayColoursAreTheDrawnOnes) {
  EXPECT_EQ(bracket_color(0), role_color(ColorRole::Stopwatch));
  EXPECT_EQ(bracket_color(99), bracket_color(3));
  EXPECT_EQ(blend_over(0xff9900, 255, 0xffffff), 0xff9900u);
  EXPECT_EQ(blend_over(0xff9900, 0, 0xffffff), 0xffffffu);
}

TEST(BusyOver, CountsAndExactBounds) {
  OverlayData o;
  o.busy_gpus = {{100, 1}, {200, 2}, {300, 0}, {400, 1}, {500, 0}};
  o.gpu_count = 2;
  auto one = busy_over(o, 150, 160);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->min_busy, 1);
  EXPECT_EQ(one->max_busy, 1);
  EXPECT_EQ(one->start_ns, 100);
  EXPECT_EQ(one->end_ns, 200);
  auto mixed = busy_over(o, 190, 310);
  ASSERT_TRUE(mixed);
  EXPECT_EQ(mixed->min_busy, 0);
  EXPECT_EQ(mixed->max_busy, 2);
  EXPECT_EQ(mixed->steps, 3u);
  EXPECT_EQ(mixed->end_ns, 400);
  EXPECT_FALSE(busy_over(o, 600, 700));
  EXPECT_FALSE(busy_over(o, 0, 50));
}

}  // namespace
}  // namespace gtv::ui
