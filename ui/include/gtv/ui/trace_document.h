#pragma once
// A trace opened in the program: loaded in a background thread (progress reported through a signal), holding the
// immutable Trace and its analysis. The result arrives once, through loaded() or failed() (hotspot's
// PerfParser::eventsAvailable pattern).
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "gtv/base/expected.h"
#include "gtv/model/rank_merge.h"
#include "gtv/ui/document_analysis.h"

namespace gtv::ui {

struct LoadResult {
  std::shared_ptr<const Trace> trace;
  std::shared_ptr<const DocumentAnalysis> analysis;
  QString error;  // one line; empty on success
};

// Reads and analyses a trace in the calling thread (the worker, and `gtv --export`).
// progress(fraction) may be called from that thread; it returns false to cancel.
using LoadProgress = std::function<bool(double)>;
// The value a load's progress reports once the file is read and the analysis (idle causes, critical path, the
// report) runs: on a 10M-event trace that is most of the wait, and has no fraction of its own to show.
inline constexpr double kAnalysingProgress = 2.0;
[[nodiscard]] LoadResult load_trace_file(const QString& path, const LoadProgress& progress = {});
// The open dialogs' filter: every readable format's file names (io/readable_formats.h), then all files.
[[nodiscard]] QString trace_file_filter();
[[nodiscard]] LoadResult load_trace_bytes(const QByteArray& bytes, const QString& name,
                                          const LoadProgress& progress = {});
[[nodiscard]] LoadResult analyse_trace(Trace trace);
// Reads the files of the ranks of one run and merges them (gtv/model/rank_merge.h); a file that cannot be read or
// a set of files the merge refuses is the one-line error. The merge's warnings are notes of the trace.
[[nodiscard]] LoadResult load_rank_files(const QStringList& paths, const RankMergeOptions& options,
                                         const LoadProgress& progress = {});

class TraceDocument : public QObject {
  Q_OBJECT
 public:
  explicit TraceDocument(QString path, QObject* parent = nullptr);
  // The rank files of one run, opened as one trace with these clock options.
  TraceDocument(QStringList rank_paths, RankMergeOptions options, QObject* parent = nullptr);
  ~TraceDocument() override;

  // Starts loading path (or, for a ":/" resource path, the embedded bytes) in the background.
  void load();
  // Takes a trace built in memory (tests, generated traces); emits loaded() synchronously.
  void set_trace(Trace trace);

  // The file; for a run of ranks, its first file (rank_paths() has them all).
  [[nodiscard]] const QString& path() const { return path_; }
  [[nodiscard]] bool is_run() const { return rank_paths_.size() > 1; }
  [[nodiscard]] const QStringList& rank_paths() const { return rank_paths_; }
  [[nodiscard]] const RankMergeOptions& merge_options() const { return merge_options_; }
  [[nodiscard]] QString title() const;
  [[nodiscard]] bool is_loading() const { return loading_; }
  [[nodiscard]] std::shared_ptr<const Trace> trace() const { return result_.trace; }
  [[nodiscard]] std::shared_ptr<const DocumentAnalysis> analysis() const { return result_.analysis; }
  [[nodiscard]] const QString& error() const { return result_.error; }
  // Blocks until a load started by load() has delivered its result (tests, command line).
  void wait();

 signals:
  void progress(double fraction);
  void analysing();  // the file is read; the analysis runs until loaded
  void loaded();
  void failed(const QString& message);

 private:
  void deliver(LoadResult result);

  QString path_;
  QStringList rank_paths_;
  RankMergeOptions merge_options_;
  LoadResult result_;
  bool loading_ = false;
  std::shared_ptr<std::atomic<bool>> cancelled_ = std::make_shared<std::atomic<bool>>(false);
  QFutureWatcher<LoadResult> watcher_;
};

}  // namespace gtv::ui
