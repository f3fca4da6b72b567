#pragma once
// Which open traces to compare: a list of the trace tabs with a check box each. The choices are a plain class
// (tested apart from the dialog): the current trace and the one shown before it start checked, and a comparison
// needs two or more. The dialog says how many runs stay readable at the window's height, and warns beyond that.
#include <QDialog>
#include <QStringList>
#include <vector>

class QLabel;
class QListWidget;
class QPushButton;

namespace gtv::ui {

class TraceChoices {
 public:
  // titles: the trace tabs in tab order; current, previous: indexes into titles of the trace in front and the
  // one in front before it (-1: none). Without a previous one, the neighbour of the current one is checked;
  // without a current one, the last two.
  TraceChoices(QStringList titles, int current, int previous);

  [[nodiscard]] int count() const { return static_cast<int>(titles_.size()); }
  [[nodiscard]] const QString& title(int index) const { return titles_[index]; }
  [[nodiscard]] bool checked(int index) const { return checked_[static_cast<std::size_t>(index)]; }
  void set_checked(int index, bool checked) { checked_[static_cast<std::size_t>(index)] = checked; }
  // The checked indexes in tab order.
  [[nodiscard]] std::vector<int> chosen() const;
  [[nodiscard]] bool can_compare() const { return chosen().size() >= 2; }
  // At the window's height (height_px) `count` panels stay readable, each panel_min_px high (compare_panel_fit).
  void set_readable(int count, int panel_min_px, int height_px);
  [[nodiscard]] int readable() const { return readable_; }  // 0: not known
  [[nodiscard]] bool beyond_readable() const { return readable_ > 0 && static_cast<int>(chosen().size()) > readable_; }
  // How many runs stay readable and why; a warning when more are checked. Empty when not known.
  [[nodiscard]] QString fit_text() const;

 private:
  QStringList titles_;
  std::vector<bool> checked_;
  int readable_ = 0;
  int panel_min_px_ = 0;
  int height_px_ = 0;
};

class TracePickerDialog : public QDialog {
  Q_OBJECT
 public:
  explicit TracePickerDialog(TraceChoices choices, QWidget* parent = nullptr);
  [[nodiscard]] const TraceChoices& choices() const { return choices_; }
  [[nodiscard]] QListWidget* list() const { return list_; }
  [[nodiscard]] QPushButton* ok_button() const { return ok_; }
  [[nodiscard]] QLabel* fit_label() const { return fit_label_; }

 private:
  void update_fit_label();
  TraceChoices choices_;
  QListWidget* list_;
  QLabel* fit_label_;
  QPushButton* ok_;
};

}  // namespace gtv::ui
