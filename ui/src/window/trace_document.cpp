#include "gtv/ui/trace_document.h"

#include <QFile>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

#include "gtv/io/readable_formats.h"
#include "gtv/io/trace_file.h"

namespace gtv::ui {
namespace {

bool forward_progress(void* context, double fraction) {
  const auto* progress = static_cast<const LoadProgress*>(context);
  return !*progress || (*progress)(fraction);
}

io::ReadOptions read_options(const LoadProgress& progress) {
  io::ReadOptions options;
  options.progress = &forward_progress;
  options.progress_context = const_cast<LoadProgress*>(&progress);
  return options;
}

LoadResult from_expected(Expected<Trace> trace, const LoadProgress& progress = {}) {
  if (!trace) {
    LoadResult result;
    result.error = QString::fromStdString(trace.error().message);
    return result;
  }
  if (progress) (void)progress(kAnalysingProgress);
  return analyse_trace(std::move(trace).value());
}

}  // namespace

LoadResult analyse_trace(Trace trace) {
  LoadResult result;
  std::shared_ptr<const analysis::AnalysedTrace> analysed = analysis::AnalysedTrace::make(std::move(trace));
  result.trace = analysed->shared_trace();
  result.analysis = std::make_shared<const DocumentAnalysis>(analyse_document(std::move(analysed)));
  return result;
}

LoadResult load_trace_bytes(const QByteArray& bytes, const QString& name, const LoadProgress& progress) {
  return from_expected(
      io::read_trace_from_memory(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                                 name.toStdString(), read_options(progress)),
      progress);
}

QString trace_file_filter() {
  return QObject::tr("Traces (%1);;All files (*)").arg(QString::fromStdString(io::readable_name_patterns()));
}

LoadResult load_trace_file(const QString& path, const LoadProgress& progress) {
  if (path.startsWith(QStringLiteral(":/"))) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return from_expected(Error{path.toStdString() + ": cannot open resource"});
    return load_trace_bytes(file.readAll(), path, progress);
  }
  return from_expected(io::read_trace(path.toStdString(), read_options(progress)), progress);
}

LoadResult load_rank_files(const QStringList& paths, const RankMergeOptions& options, const LoadProgress& progress) {
  std::vector<Trace> traces;
  traces.reserve(static_cast<std::size_t>(paths.size()));
  for (qsizetype i = 0; i < paths.size(); ++i) {
    // Each file is an equal share of the progress; the merge and the analysis come after.
    const double done = static_cast<double>(i) / static_cast<double>(paths.size());
    const LoadProgress part = [&](double f) {
      return !progress || progress(0.9 * (done + f / static_cast<double>(paths.size())));
    };
    Expected<Trace> t = io::read_trace(paths[i].toStdString(), read_options(part));
    if (!t) return from_expected(t.error());
    traces.push_back(std::move(t).value());
  }
  std::vector<RankFile> files;
  for (qsizetype i = 0; i < paths.size(); ++i)
    files.push_back({&traces[static_cast<std::size_t>(i)], QFileInfo(paths[i]).fileName().toStdString()});
  Expected<RankMerge> merged = merge_ranks(files, options);
  if (!merged) return from_expected(merged.error());
  if (progress) (void)progress(kAnalysingProgress);
  return analyse_trace(std::move(merged->trace));
}

TraceDocument::TraceDocument(QString path, QObject* parent) : QObject(parent), path_(std::move(path)) {
  connect(&watcher_, &QFutureWatcher<LoadResult>::finished, this, [this] { deliver(watcher_.result()); });
}

TraceDocument::TraceDocument(QStringList rank_paths, RankMergeOptions options, QObject* parent)
    : TraceDocument(rank_paths.value(0), parent) {
  rank_paths_ = std::move(rank_paths);
  merge_options_ = std::move(options);
}

TraceDocument::~TraceDocument() {
  cancelled_->store(true);
  watcher_.waitForFinished();
}

QString TraceDocument::title() const {
  if (path_.startsWith(QStringLiteral(":/"))) return tr("bundled trace (2x H200)");
  if (is_run()) return tr("%1 ranks: %2").arg(rank_paths_.size()).arg(QFileInfo(path_).fileName());
  return QFileInfo(path_).fileName();
}

void TraceDocument::load() {
  if (loading_) return;
  loading_ = true;
  const QString path = path_;
  const QStringList ranks = rank_paths_;
  const RankMergeOptions options = merge_options_;
  auto cancelled = cancelled_;
  QObject* self = this;
  // The worker posts progress to the document; posted events die with the object, and the destructor
  // cancels and waits, so the worker never outlives it.
  watcher_.setFuture(QtConcurrent::run([path, ranks, options, cancelled, self] {
    const LoadProgress progress = [cancelled, self](double fraction) {
      QMetaObject::invokeMethod(
          self,
          [self, fraction] {
            auto* document = static_cast<TraceDocument*>(self);
            if (fraction == kAnalysingProgress)
              emit document->analysing();
            else
              emit document->progress(fraction);
          },
          Qt::QueuedConnection);
      return !cancelled->load();
    };
    return ranks.size() > 1 ? load_rank_files(ranks, options, progress) : load_trace_file(path, progress);
  }));
}

void TraceDocument::set_trace(Trace trace) { deliver(analyse_trace(std::move(trace))); }

void TraceDocument::wait() {
  watcher_.waitForFinished();
  if (loading_) deliver(watcher_.result());
}

void TraceDocument::deliver(LoadResult result) {
  if (!loading_ && (result_.trace || !result_.error.isEmpty())) return;  // delivered once
  loading_ = false;
  result_ = std::move(result);
  if (result_.error.isEmpty())
    emit loaded();
  else
    emit failed(result_.error);
}

}  // namespace gtv::ui
