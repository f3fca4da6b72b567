#pragma once
// A classroom exercise on the projector, in three steps: the question (the recording in the classroom's timeline,
// the question and its choices; the class picks one), "Simulate" (what gtv predicts from that recording alone, and
// the choice the prediction falls in), "Reveal" (the recording of the variant drawn under the question's at the same
// time scale, the recorded value, the right choice and the prediction's error). ClassroomView::start_exercise puts
// the prompt above its timeline and this panel under it; what is shown comes from exercise.h.
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "gtv/ui/exercise.h"
#include "gtv/ui/time_mapping.h"

class QButtonGroup;
class QLabel;
class QMenu;
class QPushButton;

namespace gtv::ui {

class ClassroomView;
class MainWindow;
class TimelineView;
struct Theme;

// Where the bundled recordings are: the traces folder of gtv::data_dir() (h200x1, h200x2...).
[[nodiscard]] QString bundled_traces_dir();

// Loads the exercise of this name from traces_dir (default: bundled_traces_dir()) and opens it in a new classroom
// tab; nullptr with *error set (one line) when the name is unknown or a recording cannot be read.
ClassroomView* open_exercise(MainWindow* window, const QString& name, QString* error, const QString& traces_dir = {});
// Runs > Classroom exercises: one entry per exercise, in teaching order.
void add_exercise_menu(QMenu* runs_menu, MainWindow* window);

// The look of an exercise's timelines: the GPU lanes with work in [start_ns, end_ns) and the threads that launched
// GPU work, each folded to one row; other lanes and the recorded ranges hidden; the critical path and the warm-up
// names left out (two timelines share the projector's height).
void show_exercise_lanes(TimelineView* view, TimeNs start_ns, TimeNs end_ns);
// The font scale of an exercise's timelines (the classroom's is 2).
inline constexpr double kExerciseTimelineFontScale = 1.4;
// The height a timeline needs to show all its rows, its axes and strips included.
[[nodiscard]] int needed_height_px(TimelineView& view);

class ExercisePanel : public QWidget {
  Q_OBJECT
 public:
  enum class Step : std::uint8_t { Question, Simulated, Revealed };

  // question_view: the classroom's timeline, which shows the question's recording; the reveal's timeline keeps
  // its time scale (zooming or panning either moves both).
  ExercisePanel(TimelineView* question_view, const Theme& theme, QWidget* parent = nullptr);

  // Shows the question (step Question, nothing chosen); the prompt widget above the question's timeline changes too.
  void set_exercise(std::shared_ptr<const Exercise> exercise);
  [[nodiscard]] const Exercise* exercise() const { return exercise_.get(); }
  [[nodiscard]] QWidget* prompt() const { return prompt_; }

  void choose(int index);  // -1: no choice
  [[nodiscard]] int chosen() const { return chosen_; }
  [[nodiscard]] int choice_count() const;
  [[nodiscard]] QString choice_text(int index) const;

  void simulate();  // shows the prediction (or why there is none)
  void reveal();    // simulates too, then draws the variant and says which choice was right
  [[nodiscard]] Step step() const { return step_; }
  [[nodiscard]] bool reveal_shown() const;
  [[nodiscard]] TimelineView* reveal_view() const { return reveal_view_; }
  [[nodiscard]] QString simulation_text() const;
  [[nodiscard]] QString outcome_text() const;

  // The presentation font scale (View > Presentation font scale) times the classroom's: every text and the
  // variant's timeline grow with it; rows of choices wrap rather than widen the window.
  void set_text_scale(double scale);
  // The font scale of the variant's timeline (the question's, which the classroom sets).
  void set_timeline_scale(double scale);

  // The window each timeline opens on: the exercise's window, as long as the longer of the two, so both share one
  // time scale.
  [[nodiscard]] TimeWindow question_window() const;
  [[nodiscard]] TimeWindow reveal_window() const;

 signals:
  void step_changed();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void sync_reveal_from_question();
  void sync_question_from_reveal();
  void show_step();
  void apply_fonts();
  [[nodiscard]] TimeNs window_span_ns() const;
  [[nodiscard]] TimeNs offset_ns() const;  // reveal window start - question window start

  std::shared_ptr<const Exercise> exercise_;
  TimelineView* question_view_;
  QWidget* prompt_;
  QLabel* prompt_text_;
  QLabel* question_caption_;
  QButtonGroup* choices_;
  QWidget* choice_row_;
  std::vector<QPushButton*> choice_buttons_;
  QPushButton* simulate_;
  QPushButton* reveal_;
  QLabel* simulation_;
  QLabel* reveal_caption_;
  TimelineView* reveal_view_;
  QLabel* outcome_;
  double text_scale_ = 1;
  double timeline_scale_ = kExerciseTimelineFontScale;
  int chosen_ = -1;
  Step step_ = Step::Question;
  bool syncing_ = false;
};

}  // namespace gtv::ui
