#pragma once
// A layout that sets its widgets left to right and wraps to a new row where the next does not fit (after Qt's
// flow layout example): the classroom's choices and buttons keep their text whole on a narrow projector instead of
// pushing the window wider than the screen.
#include <QLayout>
#include <QList>

namespace gtv::ui {

class FlowLayout : public QLayout {
 public:
  explicit FlowLayout(QWidget* parent = nullptr, int spacing_px = 6);
  ~FlowLayout() override;

  void addItem(QLayoutItem* item) override;
  [[nodiscard]] int count() const override;
  [[nodiscard]] QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;
  [[nodiscard]] Qt::Orientations expandingDirections() const override;
  [[nodiscard]] bool hasHeightForWidth() const override;
  [[nodiscard]] int heightForWidth(int width) const override;
  void setGeometry(const QRect& rect) override;
  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSize() const override;

 private:
  // Places the items in rect (or only measures, when place is false); the height used.
  int arrange(const QRect& rect, bool place) const;
  QList<QLayoutItem*> items_;
  int spacing_px_;
};

}  // namespace gtv::ui
