#pragma once
// The main window: traces in tabs, opened by dialog, drag and drop, command line or the recent-files menu.
// A trace that fails to load closes its own tab and reports the error; other tabs are untouched.
#include <QMainWindow>
#include <functional>

class QLabel;
class QLineEdit;
class QMenu;
class QTabWidget;

namespace gtv::ui {

class TraceTab;
class TraceDocument;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // Opens a file (or ":/" resource) in a new tab and starts loading it; returns the tab.
  TraceTab* open_file(const QString& path);
  // Opens a document already holding a trace (or one the caller will load).
  TraceTab* open_document(TraceDocument* document);
  [[nodiscard]] QTabWidget* tabs() const { return tabs_; }
  [[nodiscard]] TraceTab* current_tab() const;
  [[nodiscard]] QStringList recent_files() const;
  void set_dark(bool dark);
  void set_font_scale(double scale);

  // Errors go through this hook (tests capture them); by default a QMessageBox.
  using ErrorHook = std::function<void(const QString& title, const QString& message)>;
  static void set_error_hook(ErrorHook hook);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void build_menus();
  void add_color_menu(QMenu* view);
  void build_toolbar();
  void open_dialog();
  void export_dialog(bool whole_trace);
  void add_recent(const QString& path);
  void remove_recent(const QString& path);
  void refresh_recent_menu();
  void refresh_tab_titles();
  void on_failed(TraceTab* tab, const QString& message);
  void apply_theme();
  void show_empty_hint();

  QTabWidget* tabs_;
  QMenu* recent_menu_ = nullptr;
  QLineEdit* search_ = nullptr;
  QLabel* search_count_ = nullptr;
  bool dark_ = false;
  double font_scale_ = 1.0;
};

}  // namespace gtv::ui
