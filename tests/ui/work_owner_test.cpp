#include "gtv/ui/work_owner.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "gtv/io/trace_file.h"
#include "gtv/model/trace_builder.h"
#include "gtv/ui/range_row.h"
#include "gtv/ui/timeline_state.h"

namespace gtv::ui {
namespace {

constexpr std::int64_t kPid = 10;
constexpr std::int64_t kTid = 11;

// A host thread launching onto one GPU stream: each launch (cudaLaunchKernel at `launch_ns`) joined to its kernel
// by a correlation id. Kernels run 50 us after their launch.
struct Launcher {
  TraceBuilder b;
  LaneIndex host = b.lane(host_lane_key(kPid, kTid));
  LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  std::uint64_t next_id = 1;

  void launch(TimeNs launch_ns, const std::string& kernel) {
    Event call;
    call.kind = EventKind::Runtime;
    call.name = b.intern("cudaLaunchKernel");
    call.start_ns = launch_ns;
    call.duration_ns = 2'000;
    call.correlation_id = next_id;
    b.add_event(host, call);
    Event k;
    k.kind = EventKind::Kernel;
    k.name = b.intern(kernel);
    k.start_ns = launch_ns + 50'000;
    k.duration_ns = 3'000;
    k.correlation_id = next_id++;
    b.add_kernel(gpu, k, KernelDetail{});
  }
  void forward(const std::string& name, TimeNs start_ns, TimeNs end_ns) {
    b.add_range({name, RangeKind::Forward, start_ns, end_ns, kPid, kTid, 0});
  }
  void annotate(const std::string& name, TimeNs start_ns, TimeNs end_ns) {
    Event a;
    a.kind = EventKind::Annotation;
    a.name = b.intern(name);
    a.start_ns = start_ns;
    a.duration_ns = end_ns - start_ns;
    b.add_event(host, a);
  }
  Trace build() { return std::move(b.build().value()); }
};

std::string owner_name(const WorkOwners& o, const Trace& t, std::uint32_t kernel_index) {
  const LaneIndex gpu = *t.find_lane(gpu_lane_key(0, 7));
  const std::uint16_t owner = o.owner_of(gpu, kernel_index);
  return owner == kNoOwner ? std::string("-") : o.names[owner];
}

TEST(WorkOwner, KernelsTakeTheForwardRangeAroundTheirLaunch) {
  Launcher l;
  l.forward("model 0 forward", 0, 100'000);
  l.forward("model 1 forward", 100'000, 200'000);
  l.launch(10'000, "gemm");
  l.launch(60'000, "relu");
  l.launch(110'000, "gemm");  // same kernel name as the first, other model
  l.launch(250'000, "gemm");  // after both ranges: no owner
  const Trace t = l.build();
  const WorkOwners o = work_owners(t);
  ASSERT_EQ(o.names.size(), 2u);
  EXPECT_EQ(owner_name(o, t, 0), "model 0 forward");
  EXPECT_EQ(owner_name(o, t, 1), "model 0 forward");
  EXPECT_EQ(owner_name(o, t, 2), "model 1 forward");
  EXPECT_EQ(owner_name(o, t, 3), "-");
  EXPECT_EQ(o.gpu_events, 4u);
  EXPECT_EQ(o.owned_events, 3u);
  EXPECT_TRUE(o.own_most_gpu_work());
  // Each owner's colour is its name's, and the two differ.
  const LaneIndex gpu = *t.find_lane(gpu_lane_key(0, 7));
  EXPECT_EQ(o.colors[o.owner_of(gpu, 0)], owner_color("model 0 forward"));
  EXPECT_EQ(o.colors[o.owner_of(gpu, 2)], owner_color("model 1 forward"));
  EXPECT_NE(owner_color("model 0 forward"), owner_color("model 1 forward"));
}

// What the lane plottable draws: in the owner mode a kernel takes its model's colour, an unowned one its kind's.
TEST(WorkOwner, TimelineColoursKernelsByOwner) {
  Launcher l;
  l.forward("model 0 forward", 0, 100'000);
  l.forward("model 1 forward", 100'000, 200'000);
  l.launch(10'000, "gemm");
  l.launch(110'000, "gemm");
  l.launch(250'000, "gemm");
  auto t = std::make_shared<const Trace>(l.build());
  TimelineState state;
  state.trace = t;
  state.overlays.owners = std::make_shared<const WorkOwners>(work_owners(*t));
  state.name_colors.assign(t->strings().size(), 0);
  for (StringId id = 0; id < t->strings().size(); ++id) state.name_colors[id] = kernel_color(t->strings().view(id));
  const LaneIndex gpu = *t->find_lane(gpu_lane_key(0, 7));
  const auto& k = t->lane(gpu).events;
  state.color_mode = ColorMode::Owner;
  EXPECT_EQ(state.color_of(gpu, 0, k[0]), owner_color("model 0 forward"));
  EXPECT_EQ(state.color_of(gpu, 1, k[1]), owner_color("model 1 forward"));
  EXPECT_EQ(state.color_of(gpu, 2, k[2]), kind_color(EventKind::Kernel));
  state.color_mode = ColorMode::KernelName;  // same name, same colour, whoever launched it
  EXPECT_EQ(state.color_of(gpu, 0, k[0]), kernel_color("gemm"));
  EXPECT_EQ(state.color_of(gpu, 1, k[1]), kernel_color("gemm"));
  state.color_mode = ColorMode::Kind;
  EXPECT_EQ(state.color_of(gpu, 0, k[0]), kind_color(EventKind::Kernel));
}

TEST(WorkOwner, InnermostRangeWinsAndAnnotationsAreTheFallback) {
  Launcher l;
  l.forward("model 0 forward", 0, 100'000);
  l.forward("model 0 forward / encoder", 20'000, 40'000);  // nested: the innermost owns
  l.annotate("optimizer step", 150'000, 200'000);          // no forward range there: the annotation owns
  l.launch(10'000, "a");
  l.launch(30'000, "b");
  l.launch(50'000, "c");
  l.launch(160'000, "d");
  const Trace t = l.build();
  const WorkOwners o = work_owners(t);
  EXPECT_EQ(owner_name(o, t, 0), "model 0 forward");
  EXPECT_EQ(owner_name(o, t, 1), "model 0 forward / encoder");
  EXPECT_EQ(owner_name(o, t, 2), "model 0 forward");
  EXPECT_EQ(owner_name(o, t, 3), "optimizer step");
}

TEST(WorkOwner, RangesOfOtherThreadsOwnNothing) {
  Launcher l;
  l.b.add_range({"model 0 forward", RangeKind::Forward, 0, 100'000, kPid, kTid + 1, 0});
  l.launch(10'000, "a");
  const Trace t = l.build();
  const WorkOwners o = work_owners(t);
  EXPECT_TRUE(o.names.empty());
  EXPECT_EQ(owner_name(o, t, 0), "-");
  EXPECT_FALSE(o.own_most_gpu_work());
}

TEST(OwnerColors, SameNamesSameColoursInEveryTrace) {
  const std::vector<std::string> a = {"model 2 forward", "model 0 forward", "model 1 forward"};
  const std::vector<std::string> b = {"model 0 forward", "model 1 forward", "model 2 forward"};
  const std::vector<Rgb> ca = owner_colors(a);
  const std::vector<Rgb> cb = owner_colors(b);
  EXPECT_EQ(ca[0], cb[2]);
  EXPECT_EQ(ca[1], cb[0]);
  EXPECT_EQ(ca[2], cb[1]);
  EXPECT_EQ(cb[0], owner_color("model 0 forward"));
  // Unowned kernels keep the kind colour, which no owner uses.
  for (const Rgb c : kOwnerPalette) EXPECT_NE(c, kind_color(EventKind::Kernel));
}

TEST(OwnerColors, UpToAPaletteOfOwnersAllDiffer) {
  const std::vector<std::string> names = {"forward", "backward", "optimizer", "loss", "data", "eval", "log", "save"};
  const std::vector<Rgb> colors = owner_colors(names);
  EXPECT_EQ(std::set<Rgb>(colors.begin(), colors.end()).size(), names.size());
  std::vector<std::string> models;
  for (int m = 0; m < 8; ++m) models.push_back("model " + std::to_string(m));
  const std::vector<Rgb> model_colors = owner_colors(models);
  EXPECT_EQ(std::set<Rgb>(model_colors.begin(), model_colors.end()).size(), models.size());
}

// The recording where models 0 and 2 share GPU 0: the timed loop's kernels belong to three owners.
TEST(WorkOwner, SequentialRecordingHasThreeModels) {
  auto trace = io::read_trace(std::string(GTV_SOURCE_DIR) + "/resources/traces/h200x2/sequential.json.gz");
  ASSERT_TRUE(trace.ok());
  const Trace& t = *trace;
  const WorkOwners o = work_owners(t);
  EXPECT_EQ(std::set<std::string>(o.names.begin(), o.names.end()),
            (std::set<std::string>{"model 0 forward", "model 1 forward", "model 2 forward"}));
  EXPECT_TRUE(o.own_most_gpu_work());
  TimeNs loop_start = 0, loop_end = 0;
  for (const Range& r : t.ranges())
    if (r.name == "timed loop") loop_start = r.start_ns, loop_end = r.end_ns;
  ASSERT_LT(loop_start, loop_end);
  // Per GPU, the owners of the kernels launched in the timed loop: GPU 0 runs models 0 and 2, GPU 1 model 1.
  std::map<std::int64_t, std::set<std::string>> owners_by_gpu;
  std::size_t loop_kernels = 0, unowned = 0;
  for (const Flow& f : t.flows()) {
    const Event& launch = t.event(f.from);
    const Event& k = t.event(f.to);
    if (k.kind != EventKind::Kernel || launch.start_ns < loop_start || launch.start_ns >= loop_end) continue;
    ++loop_kernels;
    const std::uint16_t owner = o.owner_of(f.to.lane, f.to.index);
    if (owner == kNoOwner) {
      ++unowned;
      continue;
    }
    owners_by_gpu[t.lane(f.to.lane).device()].insert(o.names[owner]);
  }
  EXPECT_GT(loop_kernels, 0u);
  EXPECT_EQ(unowned, 0u);
  EXPECT_EQ(owners_by_gpu[0], (std::set<std::string>{"model 0 forward", "model 2 forward"}));
  EXPECT_EQ(owners_by_gpu[1], (std::set<std::string>{"model 1 forward"}));
  EXPECT_NE(owner_color("model 0 forward"), owner_color("model 2 forward"));
}

// Two worker processes, each with its own "model 0": each is its own owner, named with its process, in its own
// colour, and its forward ranges take that colour.
TEST(WorkOwner, SameModelNameInTwoProcessesIsTwoOwners) {
  TraceBuilder b;
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  std::uint64_t id = 1;
  for (const std::int64_t pid : {100, 200}) {
    const LaneIndex host = b.lane(host_lane_key(pid, pid + 1));
    b.add_range({"model 0 forward", RangeKind::Forward, pid * 1'000, pid * 1'000 + 50'000, pid, pid + 1, 0});
    Event call;
    call.kind = EventKind::Runtime;
    call.name = b.intern("cudaLaunchKernel");
    call.start_ns = pid * 1'000 + 10'000;
    call.duration_ns = 2'000;
    call.correlation_id = id;
    b.add_event(host, call);
    Event k;
    k.kind = EventKind::Kernel;
    k.name = b.intern("gemm");
    k.start_ns = pid * 1'000 + 20'000;
    k.duration_ns = 3'000;
    k.correlation_id = id++;
    b.add_kernel(gpu, k, KernelDetail{});
  }
  const Trace t = std::move(b.build().value());
  const WorkOwners o = work_owners(t);
  ASSERT_EQ(o.names.size(), 2u);
  EXPECT_EQ(std::set<std::string>(o.names.begin(), o.names.end()),
            (std::set<std::string>{"pid 100 \u00b7 model 0 forward", "pid 200 \u00b7 model 0 forward"}));
  EXPECT_NE(o.colors[0], o.colors[1]);
  const LaneIndex g = *t.find_lane(gpu_lane_key(0, 7));
  EXPECT_NE(o.owner_of(g, 0), o.owner_of(g, 1));
  for (const Range& r : t.ranges()) EXPECT_EQ(range_color(r, &o), o.colors[o.find(r.pid, r.name)]) << r.pid;
  EXPECT_EQ(o.find(300, "model 0 forward"), kNoOwner);
  // The model's number, not the process's, picks the palette slot.
  EXPECT_EQ(owner_palette_slot("pid 200 \u00b7 model 3 forward"), owner_palette_slot("model 3 forward"));
}

// The `processes` recording: worker 1586 runs models 0 and 1, worker 1588 its own model 0; three owners, three
// colours, and on each GPU the two workers' work looks different.
TEST(WorkOwner, ProcessesRecordingNamesOwnersByProcess) {
  auto trace = io::read_trace(std::string(GTV_SOURCE_DIR) + "/resources/traces/h200x2/processes.json.gz");
  ASSERT_TRUE(trace.ok());
  const WorkOwners o = work_owners(*trace);
  ASSERT_EQ(o.names.size(), 3u);
  for (const std::string& name : o.names) EXPECT_EQ(name.rfind("pid ", 0), 0u) << name;
  EXPECT_EQ(std::set<Rgb>(o.colors.begin(), o.colors.end()).size(), 3u);
  EXPECT_EQ(std::set<std::int64_t>(o.pids.begin(), o.pids.end()).size(), 2u);
}

}  // namespace
}  // namespace gtv::ui
