#pragma once
// Classroom mode: a recording for a projector. Large fonts and high-contrast colours, the scenario's lesson in
// one sentence, a playback cursor that replays the recording slowly (what lies after the cursor is faded out, so
// the class sees launches queue up and kernels start), and "predict, then reveal": the GPU lanes (and the
// overlap strip) stay hidden until the teacher reveals them.
#include <QPoint>
#include <QWidget>
#include <memory>
#include <optional>

#include "gtv/analysis/report.h"
#include "gtv/model/trace.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/time_mapping.h"

class QLabel;
class QPushButton;
class QShortcut;
class QTimer;

namespace gtv::ui {

struct DocumentAnalysis;
struct Exercise;
class ExercisePanel;
class TimelineView;
class PlaybackOverlay;

// Black background, white text, fonts scaled for a projector.
[[nodiscard]] Theme classroom_theme(double font_scale = 2.0);
// The one-sentence lesson of a scenario (from its explanation); empty for unknown scenarios.
[[nodiscard]] QString scenario_lesson(const QString& scenario);

// The part of a recording that playback replays: the timed work, so the class does not sit through start-up. The
// report's region when it comes from the timed measurements, else the steady part (after warm-up, to the end of the
// GPU work), else the whole trace. report may be null (no analysis).
struct PlaybackSpan {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};
[[nodiscard]] PlaybackSpan classroom_playback_span(const Trace& trace, const analysis::Report* report);

// The range "Play this range" replays, first found: the range measured on the classroom timeline (shift-drag),
// the event selected there, the range or event chosen in the trace tab classroom mode came from; none when the
// user chose nothing (or only an empty range).
[[nodiscard]] std::optional<PlaybackSpan> chosen_playback_range(std::optional<TimeWindow> measured,
                                                                std::optional<TimeWindow> selected_event,
                                                                std::optional<TimeWindow> from_trace_tab);
// The range chosen in a timeline (its measure, else its selected event), for chosen_playback_range.
[[nodiscard]] std::optional<TimeWindow> timeline_measured(const TimelineView& view);
[[nodiscard]] std::optional<TimeWindow> timeline_selected_span(const TimelineView& view);

class ClassroomView : public QWidget {
  Q_OBJECT
 public:
  explicit ClassroomView(QWidget* parent = nullptr);

  // scenario: the trace's recorded scenario name is used when empty. analysis: the document's analysis, whose
  // overlays (the GPUs-busy strip, idle causes, warm-up) appear with the GPU lanes; none without it.
  void set_trace(std::shared_ptr<const Trace> trace, const QString& scenario = {},
                 std::shared_ptr<const DocumentAnalysis> analysis = {});
  [[nodiscard]] TimelineView* view() const { return view_; }
  [[nodiscard]] QString lesson() const;
  // The line under the timeline: cursor time, launches queued, and (once revealed) GPU operations running.
  [[nodiscard]] QString status_text() const;

  // Playback: the cursor moves over playback_span() (the timed work, or the range chosen with "Play this range")
  // in about duration_ms of wall time; when playback starts from the span's start the timeline zooms to it.
  void set_playback_duration_ms(int duration_ms);
  [[nodiscard]] int playback_duration_ms() const { return duration_ms_; }
  [[nodiscard]] TimeNs cursor_ns() const { return cursor_ns_; }
  void set_cursor_ns(TimeNs t_ns);
  [[nodiscard]] PlaybackSpan playback_span() const { return span_; }
  // What the trace tab classroom mode came from had chosen (its measured range or selected event): offered by
  // "Play this range" while the classroom timeline has none of its own.
  void set_source_range(std::optional<TimeWindow> range);
  // The range "Play this range" would play now (chosen_playback_range); none: the button is disabled.
  [[nodiscard]] std::optional<PlaybackSpan> offered_range() const;
  // Restricts playback to range and plays it from its start (zoomed to it); nullopt: back to the timed work.
  void play_range(std::optional<PlaybackSpan> range);
  [[nodiscard]] bool playing_chosen_range() const { return chosen_range_; }
  void play();
  void pause();
  void restart();
  [[nodiscard]] bool is_playing() const;
  // One timer step (the timer calls it; public so a key press or a test can step by hand).
  void step();
  [[nodiscard]] TimeNs step_ns() const;
  [[nodiscard]] static constexpr int tick_ms() { return 40; }

  void set_gpu_revealed(bool revealed);
  [[nodiscard]] bool gpu_revealed() const { return revealed_; }
  // The lesson answers the prediction, so its banner shows only once the GPUs are revealed.
  [[nodiscard]] bool lesson_shown() const;

  // Predict, simulate, reveal (exercise_panel.h): the exercise's question recording in this timeline, opened on the
  // window asked about, with the prompt above it and the panel under it (choices, Simulate, Reveal and the variant's
  // timeline at the same time scale). The lesson banner stays hidden: the reveal says the lesson.
  void start_exercise(std::shared_ptr<const Exercise> exercise);
  [[nodiscard]] ExercisePanel* exercise_panel() const { return exercise_; }

  // For the projector: the whole window full screen, showing this view alone (F11 or the button toggles, Esc
  // leaves); projector_view_changed tells the window to hide or restore its menus, toolbar, tabs and panels.
  void set_full_screen(bool full_screen);
  [[nodiscard]] bool is_full_screen() const;

  // The presentation font scale (View > Presentation font scale): the classroom's text, buttons and timelines are
  // that many times their projector size (classroom_theme); rows of buttons wrap rather than widen the window.
  void set_text_scale(double scale);
  [[nodiscard]] double text_scale() const { return text_scale_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 signals:
  void cursor_moved(gtv::TimeNs t_ns);
  void playback_finished();
  void projector_view_changed(bool on);

 private:
  void apply_lane_visibility();
  void show_launching_threads();
  void follow_cursor();
  void update_status();
  void update_range_button();
  void zoom_to_span();
  void show_exercise_step();
  void apply_fonts();
  [[nodiscard]] double exercise_timeline_scale() const;  // the font scale of an exercise's two timelines

  std::shared_ptr<const Trace> trace_;
  std::shared_ptr<const DocumentAnalysis> analysis_;
  bool one_gpu_ = false;  // the status line says "the GPU" rather than "the GPUs"
  QLabel* lesson_;
  TimelineView* view_;
  PlaybackOverlay* overlay_;
  QTimer* timer_;
  QPushButton* play_;
  QPushButton* reveal_;
  QPushButton* full_screen_;
  QPushButton* range_;
  QShortcut* escape_ = nullptr;  // only while full screen: otherwise Esc stays the timeline's (clear selection)
  QLabel* status_ = nullptr;
  std::vector<QPushButton*> buttons_;  // the row under the timeline
  double text_scale_ = 1;
  ExercisePanel* exercise_ = nullptr;  // created by the first start_exercise
  TimeNs cursor_ns_ = 0;
  PlaybackSpan span_;
  PlaybackSpan timed_span_;  // classroom_playback_span: what playback covers unless a range is chosen
  std::optional<TimeWindow> source_range_;
  bool chosen_range_ = false;
  QPoint press_px_;  // where the left button went down on the plot: a click (not a drag) seeks there
  int duration_ms_ = 60000;
  bool revealed_ = false;
};

}  // namespace gtv::ui
