// The Nsight Systems SQLite reader on the fixture made from NVIDIA's documented schema
// (tests/data/nsys/make_nsys_sqlite.py) and on variants of it: what each table becomes, which tables may be missing,
// and that the file, its bytes in memory and its gzip form give the same trace.
#include <gtest/gtest.h>

#include <algorithm>

#include "gtv/io/trace_file.h"
#include "gtv/model/kineto_names.h"
#include "nsys/nsys_schema.h"
#include "sqlite_test_util.h"
#include "test_util.h"

namespace gtv::io {
namespace {

using test::count_kinds;
using test::kNsysFixture;

std::size_t kind_count(const Trace& t, EventKind kind) { return count_kinds(t)[static_cast<std::size_t>(kind)]; }

const Event* find_event(const Trace& t, const Lane& lane, std::string_view name) {
  for (const Event& e : lane.events)
    if (t.name(e) == name) return &e;
  return nullptr;
}

Trace read_ok(std::string_view bytes, const std::string& name = "t.sqlite", const ReadOptions& options = {}) {
  Expected<Trace> t = read_trace_from_memory(bytes, name, options);
  EXPECT_TRUE(t.ok()) << t.error().message;
  return t.ok() ? std::move(t).value() : Trace();
}

TEST(NsysReader, ReadsTheDocumentedTables) {
  ReadStats stats;
  ReadOptions options;
  options.stats = &stats;
  Expected<Trace> read = read_trace(kNsysFixture, options);
  ASSERT_TRUE(read.ok()) << read.error().message;
  const Trace& t = *read;
  EXPECT_EQ(kind_count(t, EventKind::Runtime), 33u);
  EXPECT_EQ(kind_count(t, EventKind::Kernel), 15u);
  EXPECT_EQ(kind_count(t, EventKind::Memcpy), 9u);
  EXPECT_EQ(kind_count(t, EventKind::Memset), 3u);
  EXPECT_EQ(kind_count(t, EventKind::Annotation), 7u);
  EXPECT_EQ(kind_count(t, EventKind::Instant), 3u);
  EXPECT_EQ(t.flows().size(), 27u);      // every call with GPU work, joined by correlationId
  EXPECT_EQ(stats.array_elements, 70u);  // rows of the event tables
  EXPECT_EQ(stats.events_skipped, 0u);
  EXPECT_FALSE(stats.gzip);
  EXPECT_TRUE(t.metadata().notes.empty());
  EXPECT_EQ(t.metadata().origin_unix_ns, 1'700'000'000'000'000'000);
  EXPECT_EQ(t.metadata().source_tool, "Nsight Systems (SQLite export, schema 3.28.1)");

  ASSERT_EQ(t.devices().size(), 2u);
  EXPECT_EQ(t.devices()[1].name, "NVIDIA H200");
  EXPECT_EQ(t.devices()[1].sm_count, 132);
  EXPECT_EQ(t.devices()[1].total_memory_bytes, 150'754'820'096);
  EXPECT_EQ(t.devices()[1].compute_major, 9);

  const auto main_thread = t.find_lane(host_lane_key(4242, 4242));
  ASSERT_TRUE(main_thread);
  const Lane& host = t.lane(*main_thread);
  EXPECT_EQ(host.name, "thread 4242 (python3)");
  const Event* launch = find_event(t, host, "cudaLaunchKernel");  // "cudaLaunchKernel_v7000" in StringIds
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->kind, EventKind::Runtime);
  EXPECT_EQ(launch->correlation_id, 2u);
  EXPECT_EQ(launch->start_ns, 1'200'000);
  EXPECT_EQ(launch->duration_ns, 16'000);
  const Event* forward = find_event(t, host, "forward");  // an NVTX registered string (textId)
  ASSERT_NE(forward, nullptr);
  EXPECT_EQ(forward->kind, EventKind::Annotation);
  EXPECT_EQ(forward->depth, 1);  // inside "step 0"
  const Event* mark = find_event(t, host, "checkpoint 0");
  ASSERT_NE(mark, nullptr);
  EXPECT_EQ(mark->kind, EventKind::Instant);
  EXPECT_EQ(mark->duration_ns, 0);
  const auto loader = t.find_lane(host_lane_key(4242, 4250));
  ASSERT_TRUE(loader);
  EXPECT_EQ(t.lane(*loader).name, "thread 4250 (pt_data_loader)");
  EXPECT_NE(find_event(t, t.lane(*loader), "load batches"), nullptr);  // an NVTX start/end range

  const auto stream = t.find_lane(gpu_lane_key(0, 7));
  ASSERT_TRUE(stream);
  const Lane& gpu = t.lane(*stream);
  EXPECT_EQ(gpu.name, "stream 7");
  const Event& gemm = gpu.events[1];
  EXPECT_EQ(t.name(gemm), "void gemm_kernel<float, 128>(float const*, float const*, float*, int)");
  ASSERT_NE(t.kernel_detail(gemm), nullptr);
  const KernelDetail& k = *t.kernel_detail(gemm);
  EXPECT_EQ(k.grid[0], 128);
  EXPECT_EQ(k.block[0], 256);
  EXPECT_EQ(k.registers_per_thread, 64);
  EXPECT_EQ(k.shared_memory_bytes, 4096 + 8192);  // static + dynamic
  EXPECT_EQ(k.occupancy_pct, -1);
  const Event& copy = gpu.events[0];
  EXPECT_EQ(t.name(copy), "Memcpy HtoD (Pinned -> Device)");  // Kineto's name, from copyKind, srcKind, dstKind
  ASSERT_NE(t.memcpy_detail(copy), nullptr);
  EXPECT_EQ(t.memcpy_detail(copy)->bytes, 4 << 20);
  const std::optional<Flow> flow = t.flow_of({*stream, 1});
  ASSERT_TRUE(flow);
  EXPECT_EQ(t.event(flow->from).start_ns, launch->start_ns);

  const Lane& peer_stream = t.lane(*t.find_lane(gpu_lane_key(0, 13)));
  const Event* peer = find_event(t, peer_stream, "Memcpy PtoP (Device -> Device)");
  ASSERT_NE(peer, nullptr);
  EXPECT_EQ(t.memcpy_detail(*peer)->dst_device, 1);
  const Lane& memset_stream = t.lane(*t.find_lane(gpu_lane_key(1, 7)));
  const Event* memset = find_event(t, memset_stream, "Memset (Device)");
  ASSERT_NE(memset, nullptr);
  EXPECT_EQ(t.memset_detail(*memset)->bytes, 1 << 20);
}

TEST(NsysReader, FileBytesAndGzipGiveTheSameTrace) {
  const std::string bytes = test::read_file(kNsysFixture);
  const std::string gz = test::gzip_bytes(bytes);
  const std::string dir = test::scratch_dir("nsys_gzip");
  test::write_file(dir + "/t.sqlite.gz", gz);
  ReadStats from_gzip_file;
  ReadOptions options;
  options.stats = &from_gzip_file;
  Expected<Trace> file = read_trace(kNsysFixture);
  Expected<Trace> gzip_file = read_trace(dir + "/t.sqlite.gz", options);
  ASSERT_TRUE(file.ok()) << file.error().message;
  ASSERT_TRUE(gzip_file.ok()) << gzip_file.error().message;
  EXPECT_TRUE(from_gzip_file.gzip);
  for (const Trace* t : {&*gzip_file}) {
    const Trace memory = read_ok(bytes);
    const Trace gzip_memory = read_ok(gz, "t.sqlite.gz");
    for (const Trace* other : {t, &memory, &gzip_memory}) {
      ASSERT_EQ(other->lanes().size(), file->lanes().size());
      for (std::size_t i = 0; i < file->lanes().size(); ++i) {
        ASSERT_EQ(other->lanes()[i].events.size(), file->lanes()[i].events.size());
        for (std::size_t j = 0; j < file->lanes()[i].events.size(); ++j) {
          EXPECT_EQ(other->lanes()[i].events[j].start_ns, file->lanes()[i].events[j].start_ns);
          EXPECT_EQ(other->name(other->lanes()[i].events[j]), file->name(file->lanes()[i].events[j]));
        }
      }
      EXPECT_EQ(other->flows(), file->flows());
    }
  }
}

// Tables are created lazily: a report without NVTX, or with no GPU activity at all, still opens.
TEST(NsysReader, ToleratesMissingTables) {
  const std::string bytes = test::read_file(kNsysFixture);
  const Trace without_nvtx = read_ok(test::sqlite_changed(bytes, "DROP TABLE NVTX_EVENTS;"));
  EXPECT_EQ(kind_count(without_nvtx, EventKind::Annotation), 0u);
  EXPECT_EQ(kind_count(without_nvtx, EventKind::Instant), 0u);
  EXPECT_EQ(kind_count(without_nvtx, EventKind::Kernel), 15u);
  EXPECT_TRUE(without_nvtx.metadata().notes.empty());

  const Trace bare = read_ok(test::sqlite_changed(
      bytes,
      "DROP TABLE NVTX_EVENTS; DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME; DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; "
      "DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY; DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET; DROP TABLE ThreadNames; "
      "DROP TABLE TARGET_INFO_GPU; DROP TABLE TARGET_INFO_SESSION_START_TIME;"));
  EXPECT_EQ(bare.event_count(), 0u);
  ASSERT_EQ(bare.metadata().notes.size(), 1u);
  EXPECT_NE(bare.metadata().notes[0].find("no CUDA or NVTX activity was recorded"), std::string::npos);
}

// Columns are found by name: older exports lack some optional ones, newer ones add and reorder them.
TEST(NsysReader, FindsColumnsByName) {
  const std::string bytes = test::read_file(kNsysFixture);
  const Trace t = read_ok(test::sqlite_changed(bytes,
                                               "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY DROP COLUMN srcKind;"
                                               "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL ADD COLUMN newColumn TEXT;"));
  const Lane& gpu = t.lane(*t.find_lane(gpu_lane_key(0, 7)));
  EXPECT_EQ(t.name(gpu.events[0]), "Memcpy HtoD (? -> Device)");
  EXPECT_EQ(t.memcpy_detail(gpu.events[0])->src_kind, MemoryKind::Unknown);
  EXPECT_EQ(kind_count(t, EventKind::Kernel), 15u);
}

TEST(NsysReader, ProcessesTableNamesProcessesWithEvents) {
  const std::string bytes = test::read_file(kNsysFixture);
  const Trace t = read_ok(
      test::sqlite_changed(bytes,
                           "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
                           "INSERT INTO PROCESSES VALUES (281546145660928, 4242, 'train.py'), (0, 17, 'nsys');"));
  ASSERT_EQ(t.processes().size(), 1u);
  EXPECT_EQ(t.processes()[0].pid, 4242);
  EXPECT_EQ(t.processes()[0].name, "train.py");
}

// CUPTI numbers each process's correlation ids from 1: launches of two processes with the same id each join
// their own GPU work.
TEST(NsysReader, CorrelationIdsOfTwoProcessesStayApart) {
  const std::int64_t pid_a = 100, pid_b = 200;
  auto tid = [](std::int64_t pid) { return std::to_string((pid << 24) | pid); };
  auto gpid = [](std::int64_t pid) { return std::to_string(pid << 24); };
  const std::string sql =
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'kernel_a'), (3, 'kernel_b');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, "
      "correlationId INTEGER, nameId INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 110, " +
      tid(pid_a) + ", 1, 1), (120, 130, " + tid(pid_b) +
      ", 1, 1);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, "
      "correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (500, 600, 0, 7, 1, " +
      gpid(pid_b) +
      ", 3, 3), (200, 300, 1, "
      "7, 1, " +
      gpid(pid_a) + ", 2, 2);";
  const Trace t = read_ok(test::sqlite_from(sql));
  ASSERT_EQ(t.flows().size(), 2u);
  for (const Flow& f : t.flows()) {
    const std::int64_t host_pid = t.lane(f.from.lane).key.pid;
    EXPECT_EQ(t.name(t.event(f.to)), host_pid == pid_a ? "kernel_a" : "kernel_b");
  }
}

TEST(NsysReader, SkipsWhatItCannotPlaceAndSaysSo) {
  const std::string bytes = test::read_file(kNsysFixture);
  ReadStats stats;
  ReadOptions options;
  options.stats = &stats;
  const Trace t = read_ok(
      test::sqlite_changed(bytes,
                           "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, eventId) VALUES "
                           "(5, NULL, 59, 'open', 281546145665170, 1000);"
                           "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1;"
                           "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 0, end = 0 WHERE rowid = "
                           "(SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL);"),
      "t.sqlite", options);
  EXPECT_EQ(kind_count(t, EventKind::Kernel), 15u);
  EXPECT_EQ(stats.events_skipped, 2u);
  EXPECT_EQ(stats.skipped["NVTX ranges that never ended"], 1u);
  EXPECT_EQ(stats.skipped["rows without timestamps"], 1u);
  const auto& notes = t.metadata().notes;
  EXPECT_NE(std::find(notes.begin(), notes.end(), "reader skipped 1 NVTX ranges that never ended"), notes.end());
}

bool cancel_at_once(void* /*context*/, double /*fraction*/) { return false; }
bool record_progress(void* context, double fraction) {
  static_cast<std::vector<double>*>(context)->push_back(fraction);
  return true;
}

TEST(NsysReader, ReportsProgressAndCanBeCancelled) {
  std::vector<double> fractions;
  ReadOptions options;
  options.progress = &record_progress;
  options.progress_context = &fractions;
  ASSERT_TRUE(read_trace(kNsysFixture, options).ok());
  EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
  EXPECT_TRUE(std::all_of(fractions.begin(), fractions.end(), [](double f) { return f >= 0 && f <= 1; }));

  options.progress = &cancel_at_once;
  Expected<Trace> t = read_trace(kNsysFixture, options);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, kNsysFixture + ": reading cancelled");
}

TEST(NsysSchema, GlobalIdsAndRuntimeNames) {
  const std::int64_t global_tid = (std::int64_t{1} << 48) | (std::int64_t{4242} << 24) | 4250;
  EXPECT_EQ(nsys::pid_of(global_tid), 4242);
  EXPECT_EQ(nsys::tid_of(global_tid), 4250);
  EXPECT_EQ(nsys::runtime_call_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(nsys::runtime_call_name("cudaMemcpyAsync_v3020"), "cudaMemcpyAsync");
  EXPECT_EQ(nsys::runtime_call_name("cudaStreamSynchronize"), "cudaStreamSynchronize");
  EXPECT_EQ(nsys::runtime_call_name("cuMemFree_v2"), "cuMemFree_v2");  // a driver function's own name
  EXPECT_EQ(nsys::runtime_call_name("cudaGraph_vX"), "cudaGraph_vX");
  EXPECT_EQ(nsys::copy_kind_from_cupti(10), CopyKind::PeerToPeer);
  EXPECT_EQ(nsys::memory_kind_from_cupti(2), MemoryKind::Pinned);
  EXPECT_EQ(nsys::memory_kind_from_cupti(99), MemoryKind::Unknown);
}

}  // namespace
}  // namespace gtv::io
