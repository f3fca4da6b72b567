#pragma once
// Which open traces to compare: a list of the trace tabs with a check box each. The choices are a plain class
// (tested apart from the dialog): the current trace and the one shown before it start checked, and a comparison
// needs two or more.
#include <QDialog>
#include <QStringList>
#include <vector>

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

 private:
  QStringList titles_;
  std::vector<bool> checked_;
};

class TracePickerDialog : public QDialog {
  Q_OBJECT
 public:
  explicit TracePickerDialog(TraceChoices choices, QWidget* parent = nullptr);
  [[nodiscard]] const TraceChoices& choices() const { return choices_; }
  [[nodiscard]] QListWidget* list() const { return list_; }
  [[nodiscard]] QPushButton* ok_button() const { return ok_; }

 private:
  TraceChoices choices_;
  QListWidget* list_;
  QPushButton* ok_;
};

}  // namespace gtv::ui
