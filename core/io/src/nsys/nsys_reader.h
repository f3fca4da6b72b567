#pragma once
// Reader of Nsight Systems SQLite exports (`nsys export --type sqlite`): CUDA runtime calls, kernels, copies,
// memsets and NVTX ranges become the model's events, named with Kineto's vocabulary, so an nsys report and the
// same activity recorded by the PyTorch profiler give the same trace and the same analysis.
//
//   runtime call (globalTid)     -> host lane (pid, tid), EventKind::Runtime, name without "_v<version>"
//   kernel, memcpy, memset       -> GPU lane (deviceId, streamId), with their detail tables
//   NVTX push/pop, start/end     -> host lane of the thread that opened it, EventKind::Annotation
//   NVTX mark                    -> EventKind::Instant
//   correlationId                -> Event::correlation_id (launch -> GPU work flows, as Kineto's "ac2g")
//   TARGET_INFO_GPU              -> devices; ThreadNames -> "thread <tid> (<name>)"; PROCESSES -> process names
//   TARGET_INFO_SESSION_START_TIME.utcEpochNs -> the trace origin (nsys times are ns since the session start)
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "gtv/io/trace_file.h"
#include "gtv/model/trace_builder.h"
#include "nsys/sqlite_database.h"
#include "nsys/sqlite_spill.h"

namespace gtv::io {

// From the file at path (read in place) or from bytes in memory (which must outlive the call; gzip says whether
// they were inflated, for the statistics).
[[nodiscard]] Expected<Trace> read_nsys_export_file(const std::string& path, const ReadOptions& options);
// From a temporary file holding the database (sqlite_spill.h), whose name is removed once SQLite has opened it;
// name is used in messages.
[[nodiscard]] Expected<Trace> read_nsys_export_temp_file(SpilledDatabase& file, const std::string& name, bool gzip,
                                                         const ReadOptions& options);
[[nodiscard]] Expected<Trace> read_nsys_export_bytes(std::string_view bytes, const std::string& name, bool gzip,
                                                     const ReadOptions& options);

class NsysReader {
 public:
  NsysReader(SqliteDatabase& db, const ReadOptions& options, bool gzip)
      : db_(db), options_(options), name_(db.name()), gzip_(gzip) {}
  [[nodiscard]] Expected<Trace> run();

  struct Column {
    std::string_view name;
    bool required = false;
  };

 private:
  // Rows of table with the given columns (a missing optional column reads as NULL); nothing when the table is
  // missing. fn gets each row, its columns in the order given.
  using RowFn = std::function<Status(const SqliteStatement&)>;
  Status each_row(std::string_view table, std::span<const Column> columns, const RowFn& fn);
  Expected<SqliteStatement> select(std::string_view table, std::span<const Column> columns);
  Status check_is_export();
  Status read_strings();
  Status count_rows();
  Status report_progress();

  Status read_runtime_calls();
  Status read_kernels();
  Status read_copies();
  Status read_memsets();
  Status read_nvtx();
  Status read_devices();
  Status read_thread_names();
  Status read_processes();
  Status read_export_info();

  // The event of a row whose first two columns are start and end (ns), or nothing (counted as skipped).
  std::optional<Event> timed_event(const SqliteStatement& row);
  // A StringIds value, interned (cached by id), or its text.
  Expected<StringId> string(std::int64_t id);
  Expected<std::string> string_text(std::int64_t id);
  Expected<StringId> runtime_name(std::int64_t id);
  // correlationId made unique across processes: CUPTI numbers each process's calls from 1, so the ids of the
  // second process seen and later get the process's rank in the upper 32 bits (the first keeps its own ids).
  std::uint64_t correlation(std::optional<std::int64_t> pid, const SqliteStatement& row, int column);
  void skip(const std::string& reason) { ++skipped_[reason]; }
  Expected<Trace> finish();

  SqliteDatabase& db_;
  const ReadOptions& options_;
  std::string name_;
  bool gzip_ = false;
  TraceBuilder builder_;
  std::set<std::string> tables_;
  std::unordered_map<std::int64_t, std::string> string_values_;  // StringIds, read once
  std::unordered_map<std::int64_t, StringId> strings_;
  std::unordered_map<std::int64_t, StringId> runtime_names_;
  std::unordered_map<std::int64_t, std::uint64_t> process_rank_;
  std::set<std::int64_t> host_pids_;
  std::map<std::string, std::uint64_t> skipped_;
  std::uint64_t names_missing_ = 0;  // string ids StringIds lacks, and NULL kernel names: left empty
  std::string product_version_, schema_version_;
  std::uint64_t event_rows_ = 0;  // rows read from the event tables
  std::uint64_t total_rows_ = 0;  // rows of the event tables, counted when progress is reported
  double last_progress_ = 0.0;
};

}  // namespace gtv::io
