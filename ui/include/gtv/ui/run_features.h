#pragma once
// The run panel, compare and classroom, added to the main window from outside so MainWindow itself stays as it
// is: the run panel as a dock, and a Runs menu with "Record a program...", "Compare runs...", the classic
// comparisons of the bundled recordings and classroom mode for the current trace.
#include <QString>
#include <QStringList>
#include <vector>

namespace gtv::ui {

class ClassroomView;
class CompareView;
class MainWindow;
class RecordDialog;
class RunPanel;
class TraceTab;

struct ClassicComparison {
  QString title;      // "sequential vs streams"
  QStringList files;  // recording names in resources/traces/h200x2, without .json.gz
  QString note;       // shown above the runs (why a stand-in is used)
};
// sequential vs streams, threads vs processes, pageable vs pinned, from the recordings in recordings_dir (where
// `processes` is not recorded, threads vs threads-streams stands in, with a note saying so); and sequential vs
// cuda-graph, only where `cuda-graph` is recorded there.
[[nodiscard]] std::vector<ClassicComparison> classic_comparisons(const QString& recordings_dir);
[[nodiscard]] std::vector<ClassicComparison> classic_comparisons();  // of bundled_recordings_dir()

// Adds the dock and the menu; returns the run panel.
RunPanel* install_run_features(MainWindow* window);

// Runs > Record a program...: shows the record dialog (the one already open, if any), whose traces are written under
// data_dir/runs and open as tabs, and whose failures come up in a message box with gtv-cli's one-line reason.
RecordDialog* open_record_dialog(MainWindow* window, const QString& data_dir);

// Opens the files stacked in a new tab, read and analysed off the UI thread (the tab says so meanwhile); nullptr
// with *error set (one line) when a file is missing or unreadable. A file that does not read as a trace closes the
// tab again with a message box naming the error.
CompareView* open_compare(MainWindow* window, const QStringList& paths, const QString& note, QString* error);
CompareView* open_classic_comparison(MainWindow* window, const ClassicComparison& comparison, QString* error);
// Asks which loaded trace tabs to stack (e.g. runs just made with the panel; the current one and the one before it
// checked), then compares them; nullptr with *error set when fewer than two are open, with *error empty when the
// user cancels.
CompareView* compare_open_traces(MainWindow* window, QString* error);
// Stacks these trace tabs' traces, in this order, in a new tab named after them; nullptr with *error set when
// fewer than two are given.
CompareView* compare_trace_tabs(MainWindow* window, const std::vector<TraceTab*>& tabs, QString* error);
// Opens the current tab's trace in classroom mode in a new tab; nullptr when no loaded trace is current.
ClassroomView* open_classroom(MainWindow* window);

}  // namespace gtv::ui
