#include "nsys/nsys_reader.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

#include "gtv/model/kineto_names.h"
#include "input/read_limits.h"
#include "nsys/nsys_schema.h"
#include "output/temp_files.h"

namespace gtv::io {
namespace {

using Column = NsysReader::Column;

// Progress is reported every so many rows (and by SQLite's callback during long queries).
constexpr std::uint64_t kRowsPerProgress = 4096;

std::string quoted(std::string_view identifier) { return "\"" + std::string(identifier) + "\""; }

std::int32_t clamp32(std::int64_t value) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(value, std::numeric_limits<std::int32_t>::min(),
                                                            std::numeric_limits<std::int32_t>::max()));
}

std::optional<std::int64_t> pid_column(const SqliteStatement& row, int column) {
  if (row.is_null(column)) return std::nullopt;
  return nsys::pid_of(row.int64(column));
}

// The columns every GPU activity table (kernels, copies, memsets) starts with, in this order, read by these names
// wherever a row is read; a table's own columns follow from ColOwn.
namespace gpu_col {
enum : int { ColStart, ColEnd, ColDeviceId, ColStreamId, ColCorrelationId, ColGlobalPid, ColOwn };
}  // namespace gpu_col
constexpr std::array<Column, gpu_col::ColOwn> kGpuLeading{
    {{"start", true}, {"end", true}, {"deviceId", true}, {"streamId", true}, {"correlationId"}, {"globalPid"}}};
// The leading columns, then a table's own.
template <std::size_t N>
constexpr std::array<Column, gpu_col::ColOwn + N> gpu_columns(const std::array<Column, N>& own) {
  std::array<Column, gpu_col::ColOwn + N> out{};
  for (std::size_t i = 0; i < kGpuLeading.size(); ++i) out[i] = kGpuLeading[i];
  for (std::size_t i = 0; i < N; ++i) out[gpu_col::ColOwn + i] = own[i];
  return out;
}

LaneKey gpu_lane_of(const SqliteStatement& row) {
  return gpu_lane_key(row.int64(gpu_col::ColDeviceId), row.int64(gpu_col::ColStreamId));
}

}  // namespace

Expected<SqliteStatement> NsysReader::select(std::string_view table, std::span<const Column> columns) {
  Expected<std::set<std::string>> present = db_.columns(std::string(table));
  if (!present) return present.error();
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const bool has = present->contains(std::string(columns[i].name));
    if (!has && columns[i].required)
      return Error{name_ + ": table " + std::string(table) + " has no column '" + std::string(columns[i].name) +
                   "' (not the Nsight Systems export schema gtv reads)"};
    sql += (i == 0 ? "" : ", ") + (has ? quoted(columns[i].name) : std::string("NULL"));
  }
  sql += " FROM " + quoted(table);
  return db_.prepare(sql, "table " + std::string(table));
}

Status NsysReader::each_row(std::string_view table, std::span<const Column> columns, const RowFn& fn) {
  if (!tables_.contains(std::string(table))) return ok_status();
  const bool event_table =
      std::find(std::begin(nsys::kEventTables), std::end(nsys::kEventTables), table) != std::end(nsys::kEventTables);
  if (event_table) {
    if (Status s = report_progress(); !s) return s;
  }
  Expected<SqliteStatement> query = select(table, columns);
  if (!query) return query.error();
  const std::string what = "table " + std::string(table);
  while (true) {
    Expected<bool> row = query->step(what);
    if (!row) return row.error();
    if (!*row) return ok_status();
    if (Status s = fn(*query); !s) return s;
    if (!event_table) continue;
    if (++event_rows_ % kRowsPerProgress == 0) {
      if (Status s = report_progress(); !s) return s;
    }
  }
}

// The share of the event tables' rows read so far (counted up front when progress is wanted).
Status NsysReader::report_progress() {
  if (options_.progress == nullptr) return ok_status();
  if (total_rows_ > 0)
    last_progress_ = std::min(1.0, static_cast<double>(event_rows_) / static_cast<double>(total_rows_));
  if (!options_.progress(options_.progress_context, last_progress_)) return Error{name_ + ": reading cancelled"};
  return ok_status();
}

Status NsysReader::check_is_export() {
  Expected<std::set<std::string>> tables = db_.tables();
  if (!tables) return tables.error();
  tables_ = std::move(*tables);
  // A view or virtual table under a name gtv reads would run the file's SQL (or a module) on every read.
  Expected<std::set<std::string>> computed = db_.views_and_virtual_tables();
  if (!computed) return computed.error();
  for (std::string_view table : nsys::kTablesRead) {
    std::string lower(table);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (computed->contains(lower))
      return Error{name_ + ": " + std::string(table) +
                   " is a view or a virtual table, not a stored table: gtv runs no query from the file"};
  }
  const bool has_known_table = tables_.contains(std::string(nsys::kExportInfo)) ||
                               tables_.contains(std::string(nsys::kGpus)) ||
                               std::any_of(std::begin(nsys::kEventTables), std::end(nsys::kEventTables),
                                           [&](std::string_view t) { return tables_.contains(std::string(t)); });
  if (!tables_.contains(std::string(nsys::kStringIds)) || !has_known_table)
    return Error{name_ +
                 ": an SQLite database but not an Nsight Systems export: it lacks the StringIds table or "
                 "all of META_DATA_EXPORT, TARGET_INFO_GPU, CUPTI_ACTIVITY_KIND_* and NVTX_EVENTS"};
  return ok_status();
}

// StringIds is read once, in file order (the first row of an id wins): lookups then cost nothing, whatever
// indexes the file has or lacks.
Status NsysReader::read_strings() {
  static constexpr std::array<Column, 2> kColumns{{{"id", true}, {"value", true}}};
  return each_row(nsys::kStringIds, kColumns, [&](const SqliteStatement& row) -> Status {
    string_values_.try_emplace(row.int64(0), row.text(1));
    return ok_status();
  });
}

Status NsysReader::count_rows() {
  if (options_.progress == nullptr) return ok_status();
  for (std::string_view table : nsys::kEventTables) {
    if (!tables_.contains(std::string(table))) continue;
    const std::string what = "table " + std::string(table);
    Expected<SqliteStatement> query = db_.prepare("SELECT count(*) FROM " + quoted(table), what);
    if (!query) return query.error();
    Expected<bool> row = query->step(what);
    if (!row) return row.error();
    if (*row) total_rows_ += static_cast<std::uint64_t>(std::max<std::int64_t>(0, query->int64(0)));
  }
  return ok_status();
}

std::optional<Event> NsysReader::timed_event(const SqliteStatement& row) {
  const std::int64_t start = row.int64(0), end = row.int64(1);
  if (row.is_null(0) || row.is_null(1) || (start == 0 && end == 0)) {
    skip("rows without timestamps");
    return std::nullopt;
  }
  if (end < start) {
    skip("rows that end before they start");
    return std::nullopt;
  }
  Event e;
  e.start_ns = start;
  e.duration_ns = saturating_sub(end, start);
  return e;
}

Expected<std::string> NsysReader::string_text(std::int64_t id) {
  const auto it = string_values_.find(id);
  if (it == string_values_.end()) {
    ++names_missing_;  // once per id: callers cache what this returns
    return std::string();
  }
  return it->second;
}

Expected<StringId> NsysReader::string(std::int64_t id) {
  if (const auto it = strings_.find(id); it != strings_.end()) return it->second;
  Expected<std::string> text = string_text(id);
  if (!text) return text.error();
  return strings_.emplace(id, builder_.intern(*text)).first->second;
}

Expected<StringId> NsysReader::runtime_name(std::int64_t id) {
  if (const auto it = runtime_names_.find(id); it != runtime_names_.end()) return it->second;
  Expected<std::string> text = string_text(id);
  if (!text) return text.error();
  return runtime_names_.emplace(id, builder_.intern(nsys::runtime_call_name(*text))).first->second;
}

std::uint64_t NsysReader::correlation(std::optional<std::int64_t> pid, const SqliteStatement& row, int column) {
  const auto id = static_cast<std::uint64_t>(row.int64(column));
  if (id == kNoCorrelation) return kNoCorrelation;
  std::uint64_t rank = 0;  // GPU work without a process goes with the first process
  if (pid) rank = process_rank_.try_emplace(*pid, process_rank_.size()).first->second;
  return id + (rank << 32);
}

Status NsysReader::read_runtime_calls() {
  enum : int { ColStart, ColEnd, ColGlobalTid, ColCorrelationId, ColNameId };
  static constexpr std::array<Column, 5> kColumns{
      {{"start", true}, {"end", true}, {"globalTid"}, {"correlationId"}, {"nameId", true}}};
  static_assert(ColStart == 0 && ColEnd == 1, "timed_event reads start and end first");
  return each_row(nsys::kRuntimeCalls, kColumns, [&](const SqliteStatement& row) -> Status {
    std::optional<Event> e = timed_event(row);
    if (!e) return ok_status();
    if (row.is_null(ColGlobalTid)) {
      skip("runtime calls without a thread (globalTid)");
      return ok_status();
    }
    const std::int64_t pid = nsys::pid_of(row.int64(ColGlobalTid)), tid = nsys::tid_of(row.int64(ColGlobalTid));
    Expected<StringId> name = runtime_name(row.int64(ColNameId));
    if (!name) return name.error();
    e->name = *name;
    e->kind = EventKind::Runtime;
    e->correlation_id = correlation(pid, row, ColCorrelationId);
    builder_.add_event(builder_.lane(host_lane_key(pid, tid)), *e);
    host_pids_.insert(pid);
    return ok_status();
  });
}

Status NsysReader::read_kernels() {
  enum : int {
    ColDemangledName = gpu_col::ColOwn,
    ColShortName,
    ColMangledName,
    ColRegistersPerThread,
    ColGridX,
    ColBlockX = ColGridX + 3,
    ColStaticSharedMemory = ColBlockX + 3,
    ColDynamicSharedMemory,
  };
  static constexpr auto kColumns = gpu_columns<13>({{{"demangledName"},
                                                     {"shortName"},
                                                     {"mangledName"},
                                                     {"registersPerThread"},
                                                     {"gridX"},
                                                     {"gridY"},
                                                     {"gridZ"},
                                                     {"blockX"},
                                                     {"blockY"},
                                                     {"blockZ"},
                                                     {"staticSharedMemory"},
                                                     {"dynamicSharedMemory"},
                                                     {"sharedMemoryExecuted"}}});
  static_assert(kColumns[ColDynamicSharedMemory].name == "dynamicSharedMemory", "the names follow the columns");
  return each_row(nsys::kKernels, kColumns, [&](const SqliteStatement& row) -> Status {
    std::optional<Event> e = timed_event(row);
    if (!e) return ok_status();
    // The demangled name with templates and arguments, as Kineto shows it; the shorter ones when it is missing.
    const int name_column = !row.is_null(ColDemangledName) ? ColDemangledName
                            : !row.is_null(ColShortName)   ? ColShortName
                                                           : ColMangledName;
    if (row.is_null(name_column)) {
      e->name = builder_.intern("");
      ++names_missing_;
    } else {
      Expected<StringId> name = string(row.int64(name_column));
      if (!name) return name.error();
      e->name = *name;
    }
    e->correlation_id = correlation(pid_column(row, gpu_col::ColGlobalPid), row, gpu_col::ColCorrelationId);
    KernelDetail k;
    k.registers_per_thread = clamp32(row.int64(ColRegistersPerThread));
    for (int i = 0; i < 3; ++i) {
      k.grid[i] = clamp32(row.int64(ColGridX + i));
      k.block[i] = clamp32(row.int64(ColBlockX + i));
    }
    k.shared_memory_bytes =
        clamp32(saturating_add(row.int64(ColStaticSharedMemory), row.int64(ColDynamicSharedMemory)));
    builder_.add_kernel(builder_.lane(gpu_lane_of(row)), *e, k);
    return ok_status();
  });
}

Status NsysReader::read_copies() {
  enum : int { ColBytes = gpu_col::ColOwn, ColCopyKind, ColSrcKind, ColDstKind, ColDstDeviceId };
  static constexpr auto kColumns =
      gpu_columns<5>({{{"bytes"}, {"copyKind"}, {"srcKind"}, {"dstKind"}, {"dstDeviceId"}}});
  static_assert(kColumns[ColDstDeviceId].name == "dstDeviceId", "the names follow the columns");
  return each_row(nsys::kCopies, kColumns, [&](const SqliteStatement& row) -> Status {
    std::optional<Event> e = timed_event(row);
    if (!e) return ok_status();
    MemcpyDetail m;
    m.bytes = row.int64(ColBytes);
    m.copy_kind = nsys::copy_kind_from_cupti(row.int64(ColCopyKind));
    m.src_kind = nsys::memory_kind_from_cupti(row.int64(ColSrcKind));
    m.dst_kind = nsys::memory_kind_from_cupti(row.int64(ColDstKind));
    if (m.copy_kind == CopyKind::PeerToPeer && !row.is_null(ColDstDeviceId))
      m.dst_device = clamp32(row.int64(ColDstDeviceId));
    e->name = builder_.intern(kineto::memcpy_event_name(m));
    e->correlation_id = correlation(pid_column(row, gpu_col::ColGlobalPid), row, gpu_col::ColCorrelationId);
    builder_.add_memcpy(builder_.lane(gpu_lane_of(row)), *e, m);
    return ok_status();
  });
}

Status NsysReader::read_memsets() {
  enum : int { ColBytes = gpu_col::ColOwn, ColValue, ColMemKind };
  static constexpr auto kColumns = gpu_columns<3>({{{"bytes"}, {"value"}, {"memKind"}}});
  static_assert(kColumns[ColMemKind].name == "memKind", "the names follow the columns");
  return each_row(nsys::kMemsets, kColumns, [&](const SqliteStatement& row) -> Status {
    std::optional<Event> e = timed_event(row);
    if (!e) return ok_status();
    MemsetDetail m;
    m.bytes = row.int64(ColBytes);
    m.value = clamp32(row.int64(ColValue));
    m.memory_kind = nsys::memory_kind_from_cupti(row.int64(ColMemKind));
    e->name = builder_.intern(kineto::memset_event_name(m));
    e->correlation_id = correlation(pid_column(row, gpu_col::ColGlobalPid), row, gpu_col::ColCorrelationId);
    builder_.add_memset(builder_.lane(gpu_lane_of(row)), *e, m);
    return ok_status();
  });
}

// Ranges and marks; the other NVTX rows (domains, categories, thread names given through NVTX) are not events.
Status NsysReader::read_nvtx() {
  enum : int { ColStart, ColEnd, ColEventType, ColText, ColTextId, ColGlobalTid };
  static constexpr std::array<Column, 6> kColumns{
      {{"start", true}, {"end"}, {"eventType", true}, {"text"}, {"textId"}, {"globalTid"}}};
  static_assert(ColStart == 0 && ColEnd == 1, "timed_event reads start and end first");
  return each_row(nsys::kNvtxEvents, kColumns, [&](const SqliteStatement& row) -> Status {
    const std::int64_t type = row.int64(ColEventType);
    const bool mark = type == nsys::kNvtxMark;
    if (!mark && type != nsys::kNvtxPushPopRange && type != nsys::kNvtxStartEndRange) return ok_status();
    if (!mark && row.is_null(ColEnd)) {
      skip("NVTX ranges that never ended");
      return ok_status();
    }
    if (row.is_null(ColGlobalTid)) {
      skip("NVTX ranges and marks without a thread (globalTid)");
      return ok_status();
    }
    Event e;
    if (mark) {
      e.start_ns = row.int64(ColStart);
    } else if (std::optional<Event> timed = timed_event(row)) {
      e = *timed;
    } else {
      return ok_status();
    }
    e.kind = mark ? EventKind::Instant : EventKind::Annotation;
    if (!row.is_null(ColText)) {
      e.name = builder_.intern(row.text(ColText));
    } else {
      Expected<StringId> name = string(row.int64(ColTextId));
      if (!name) return name.error();
      e.name = *name;
    }
    const std::int64_t pid = nsys::pid_of(row.int64(ColGlobalTid)), tid = nsys::tid_of(row.int64(ColGlobalTid));
    builder_.add_event(builder_.lane(host_lane_key(pid, tid)), e);
    host_pids_.insert(pid);
    return ok_status();
  });
}

Expected<Trace> NsysReader::run() {
  if (options_.progress != nullptr) {
    db_.set_progress([this] { return options_.progress(options_.progress_context, last_progress_); });
  }
  for (auto step : {&NsysReader::check_is_export, &NsysReader::read_strings, &NsysReader::count_rows,
                    &NsysReader::read_runtime_calls, &NsysReader::read_kernels, &NsysReader::read_copies,
                    &NsysReader::read_memsets, &NsysReader::read_nvtx, &NsysReader::read_devices,
                    &NsysReader::read_thread_names, &NsysReader::read_processes, &NsysReader::read_export_info}) {
    if (Status s = (this->*step)(); !s) return s.error();
  }
  return finish();
}

Expected<Trace> read_nsys_export_file(const std::string& path, const ReadOptions& options) {
  Expected<SqliteDatabase> db = SqliteDatabase::open_file(path, max_value_bytes(options));
  if (!db) return db.error();
  return NsysReader(*db, options, false).run();
}

Expected<Trace> read_nsys_export_temp_file(SpilledDatabase& file, const std::string& name, bool gzip,
                                           const ReadOptions& options) {
  Expected<SqliteDatabase> db = SqliteDatabase::open_file(file.path(), max_value_bytes(options), name);
  // SQLite holds the file open from here: its name can go.
  file.remove_name();
  if (!db) return db.error();
  return NsysReader(*db, options, gzip).run();
}

Expected<Trace> read_nsys_export_bytes(std::string_view bytes, const std::string& name, bool gzip,
                                       const ReadOptions& options) {
  Expected<SqliteDatabase> db = SqliteDatabase::open_bytes(bytes, name, max_value_bytes(options));
  if (!db) return db.error();
  return NsysReader(*db, options, gzip).run();
}

}  // namespace gtv::io
