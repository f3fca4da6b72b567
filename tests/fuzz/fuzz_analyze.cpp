// libFuzzer target: every trace that reads goes through the whole analysis (and its three report formats), level
// of detail queries over a few windows and widths, and hit tests, checking what each returns against the lane.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "gtv/analysis/report.h"
#include "gtv/base/time.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/lod.h"
#include "trace_shape.h"

namespace {

using gtv::Lane;
using gtv::TimeNs;

constexpr std::size_t kMaxLanesQueried = 16;

void check_spans(const Lane& lane, const std::vector<gtv::LodSpan>& spans) {
  for (const gtv::LodSpan& s : spans) {
    gtv::fuzz::require(s.count >= 1, "LOD span with no events");
    gtv::fuzz::require(std::size_t{s.first_index} + s.count <= lane.events.size(), "LOD span past the lane's events");
    gtv::fuzz::require(s.depth < lane.by_depth.size(), "LOD span at a depth the lane does not have");
    gtv::fuzz::require(s.start_ns <= s.end_ns, "LOD span ends before it starts");
  }
}

void query_lane(const Lane& lane, TimeNs t0_ns, TimeNs t1_ns) {
  // The whole trace, each half, a sliver at the start and a window past the end.
  const TimeNs mid_ns = t0_ns / 2 + t1_ns / 2;
  const TimeNs windows[][2] = {{t0_ns, t1_ns},
                               {t0_ns, mid_ns},
                               {mid_ns, t1_ns},
                               {t0_ns, gtv::saturating_add(t0_ns, 1)},
                               {t1_ns, gtv::saturating_add(t1_ns, 1000)},
                               {t1_ns, t0_ns}};
  std::vector<gtv::LodSpan> spans;
  for (const auto& w : windows) {
    for (const double width_px : {1.0, 7.5, 1000.0, 1e7}) {
      gtv::query_lod(lane, {w[0], w[1], width_px}, spans);
      check_spans(lane, spans);
    }
  }
  const int depths = std::min(lane.depth_count() + 1, 6);
  for (const TimeNs t_ns : {t0_ns, mid_ns, t1_ns, gtv::saturating_sub(t1_ns, 1)}) {
    for (int depth = -1; depth < depths; ++depth) {
      for (const TimeNs tolerance_ns : {TimeNs{0}, TimeNs{1000}}) {
        const std::int64_t hit = gtv::event_at(lane, depth, t_ns, tolerance_ns);
        gtv::fuzz::require(hit >= -1 && hit < static_cast<std::int64_t>(lane.events.size()), "event_at out of range");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gtv;
  fuzz::FuzzInput input;
  if (!fuzz::decode_input(data, size, input)) return 0;
  const Expected<Trace> trace = io::read_trace_from_memory(input.file, "fuzz", input.options);
  if (!trace) return 0;
  fuzz::check_model(*trace);
  const analysis::Report report = analysis::analyze(*trace);
  for (const analysis::Format f : {analysis::Format::Text, analysis::Format::Markdown, analysis::Format::Json})
    fuzz::require(!analysis::format_report(report, f).empty(), "empty report");
  const std::size_t lanes = std::min(trace->lanes().size(), kMaxLanesQueried);
  for (std::size_t i = 0; i < lanes; ++i) query_lane(trace->lanes()[i], trace->start_ns(), trace->end_ns());
  return 0;
}
