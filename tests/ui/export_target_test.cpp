// QtTest (offscreen): where an exported image goes. The GUI's exports follow the rules of every file gtv writes: a
// symlink's target is written, a FIFO is streamed into, a directory or a read-only folder is refused with one line,
// a replaced file keeps its mode, hard links keep sharing one file, and no temporary file is ever left behind.
#include <fcntl.h>
#include <poll.h>
#include <qcustomplot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QDir>
#include <QImage>
#include <QLabel>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest/QtTest>
#include <csignal>
#include <string>
#include <thread>

#include "fifo_drain.h"
#include "gtv/ui/export.h"
#include "gtv/ui/image_file.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/timeline_view.h"
#include "gtv/ui/widget_export.h"
#include "test_traces.h"

namespace gtv::ui {
namespace {

using gtv::test::drain_fifo;
using gtv::test::kNobody;

// Every name in folder, hidden ones included: what an export may have left next to its target.
QStringList entries(const QString& folder) {
  return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

QByteArray read_all(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

mode_t mode_of(const QString& path) {
  struct stat st {};
  return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_mode & 07777 : 0;
}

bool is_fifo(const QString& path) {
  struct stat st {};
  return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISFIFO(st.st_mode);
}

// Root writes into any folder whatever its mode: for as long as this lives, a root process acts as the user
// nobody, so the permission bits apply. Leaves other users as they are.
class ActAsUnprivileged {
 public:
  ActAsUnprivileged() : dropped_(::geteuid() == 0 && ::seteuid(kNobody) == 0) {}
  ~ActAsUnprivileged() {
    if (dropped_) (void)!::seteuid(0);
  }
  ActAsUnprivileged(const ActAsUnprivileged&) = delete;
  ActAsUnprivileged& operator=(const ActAsUnprivileged&) = delete;

 private:
  bool dropped_;
};

}  // namespace

class ExportTargetTest : public QObject {
  Q_OBJECT

  std::unique_ptr<TimelineView> view_;

  ExportOptions options(const QString& path) const {
    ExportOptions o;
    o.path = path;
    o.width_px = 640;
    o.height_px = 360;
    return o;
  }

 private slots:
  void initTestCase() {
    view_ = std::make_unique<TimelineView>();
    view_->resize(640, 360);
    view_->set_trace(std::make_shared<const Trace>(test::small_trace()));
    view_->replot_now();
  }

  // The plot alone is the very file QCustomPlot's own savePng, saveJpg and savePdf write, byte for byte.
  void plotFilesAreWhatQCustomPlotWrites() {
    QTemporaryDir dir;
    for (const char* suffix : {"png", "jpg"}) {
      const QString ours = dir.filePath(QStringLiteral("ours.%1").arg(QLatin1String(suffix)));
      const QString theirs = dir.filePath(QStringLiteral("theirs.%1").arg(QLatin1String(suffix)));
      ExportOptions o = options(ours);
      o.scale = 1.5;
      const Status status = export_timeline(*view_, o);
      QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
      const bool saved = QLatin1String(suffix) == QLatin1String("png")
                             ? view_->plot()->savePng(theirs, o.width_px, o.height_px, o.scale)
                             : view_->plot()->saveJpg(theirs, o.width_px, o.height_px, o.scale, o.jpg_quality);
      QVERIFY(saved);
      QVERIFY(!read_all(ours).isEmpty());
      QVERIFY2(read_all(ours) == read_all(theirs), suffix);
    }
    // The PDF too, in the light theme (a white page, no background drawn) and the dark one, but for the time it
    // was made.
    auto undated = [](const QByteArray& pdf) {
      static const QRegularExpression date(QStringLiteral("/CreationDate \\(D:[0-9]+Z?\\)"));
      return QString::fromLatin1(pdf).remove(date);
    };
    for (const bool dark : {false, true}) {
      view_->set_theme(dark ? dark_theme() : light_theme());
      view_->replot_now();
      const ExportOptions o = options(dir.filePath(QStringLiteral("ours.pdf")));
      const QString theirs = dir.filePath(QStringLiteral("theirs.pdf"));
      QVERIFY(export_timeline(*view_, o).ok());
      QVERIFY(view_->plot()->savePdf(theirs, o.width_px, o.height_px, QCP::epNoCosmetic, QStringLiteral("gtv")));
      QVERIFY(read_all(o.path).startsWith("%PDF-"));
      QVERIFY2(undated(read_all(o.path)) == undated(read_all(theirs)), dark ? "dark" : "light");
    }
    view_->set_theme(light_theme());
    view_->replot_now();
  }

  void vectorFormatsAreComplete() {
    QTemporaryDir dir;
    ExportOptions o = options(dir.filePath(QStringLiteral("out.pdf")));
    QVERIFY(export_timeline(*view_, o).ok());
    const QByteArray pdf = read_all(o.path);
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY(pdf.trimmed().endsWith("%%EOF"));
    o.path = dir.filePath(QStringLiteral("out.svg"));
    QVERIFY(export_timeline(*view_, o).ok());
    const QByteArray svg = read_all(o.path);
    QVERIFY(svg.contains("<svg") && svg.trimmed().endsWith("</svg>"));
    QVERIFY(svg.contains("gemm_big"));
    QCOMPARE(entries(dir.path()), (QStringList{QStringLiteral("out.pdf"), QStringLiteral("out.svg")}));
  }

  void symlinkStaysALinkAndItsTargetIsWritten() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("real")));
    const QString target = dir.filePath(QStringLiteral("real/target.png"));
    QFile old(target);
    QVERIFY(old.open(QIODevice::WriteOnly) && old.write("old") == 3);
    old.close();
    const QString link = dir.filePath(QStringLiteral("link.png"));
    QVERIFY(::symlink("real/target.png", QFile::encodeName(link).constData()) == 0);  // relative to the link
    const Status status = export_timeline(*view_, options(link));
    QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
    QVERIFY(QFileInfo(link).isSymLink());
    QCOMPARE(QFileInfo(link).symLinkTarget(), QFileInfo(target).absoluteFilePath());
    QCOMPARE(QImage(target).size(), QSize(640, 360));
    QCOMPARE(entries(dir.path()), (QStringList{QStringLiteral("link.png"), QStringLiteral("real")}));
    QCOMPARE(entries(dir.filePath(QStringLiteral("real"))), QStringList{QStringLiteral("target.png")});
  }

  void fifoIsStreamedIntoAndStaysAFifo() {
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("pipe.png"));
    const QByteArray fifo_name = QFile::encodeName(fifo);
    QVERIFY(::mkfifo(fifo_name.constData(), 0600) == 0);
    // The read end is held here, so the test ends even should the write replace the FIFO's name.
    const int held = ::open(fifo_name.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    QVERIFY(held >= 0);
    std::string received;
    std::thread reader([&] { received = drain_fifo(held); });
    const Status status = export_timeline(*view_, options(fifo));
    // A writer that comes and goes ends the reader had the write never opened the FIFO.
    const std::string held_path = "/proc/self/fd/" + std::to_string(held);
    if (const int fd = ::open(held_path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC); fd >= 0) ::close(fd);
    reader.join();
    ::close(held);
    QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
    QVERIFY(is_fifo(fifo));
    const QImage image = QImage::fromData(QByteArray::fromStdString(received), "PNG");
    QCOMPARE(image.size(), QSize(640, 360));
    QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("pipe.png")});
  }

  void replacedFileKeepsItsModeAndNewFileHonoursTheUmask() {
    QTemporaryDir dir;
    const QString private_file = dir.filePath(QStringLiteral("private.png"));
    QFile old(private_file);
    QVERIFY(old.open(QIODevice::WriteOnly) && old.write("old") == 3);
    old.close();
    QVERIFY(::chmod(QFile::encodeName(private_file).constData(), 0600) == 0);
    QVERIFY(export_timeline(*view_, options(private_file)).ok());
    QCOMPARE(mode_of(private_file), mode_t{0600});
    QCOMPARE(QImage(private_file).size(), QSize(640, 360));

    const mode_t previous = ::umask(027);
    const Status fresh = export_timeline(*view_, options(dir.filePath(QStringLiteral("fresh.svg"))));
    ::umask(previous);
    QVERIFY(fresh.ok());
    QCOMPARE(mode_of(dir.filePath(QStringLiteral("fresh.svg"))), mode_t{0640});
    QCOMPARE(entries(dir.path()), (QStringList{QStringLiteral("fresh.svg"), QStringLiteral("private.png")}));
  }

  void hardLinkedFileIsWrittenInPlace() {
    QTemporaryDir dir;
    const QString first = dir.filePath(QStringLiteral("first.png"));
    const QString second = dir.filePath(QStringLiteral("second.png"));
    QFile old(first);
    QVERIFY(old.open(QIODevice::WriteOnly) && old.write("old") == 3);
    old.close();
    QVERIFY(::link(QFile::encodeName(first).constData(), QFile::encodeName(second).constData()) == 0);
    QVERIFY(export_timeline(*view_, options(first)).ok());
    QCOMPARE(QImage(second).size(), QSize(640, 360));  // the other name sees the new content
    QCOMPARE(entries(dir.path()), (QStringList{QStringLiteral("first.png"), QStringLiteral("second.png")}));
  }

  void directoryIsRefusedWithOneLine() {
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("folder.png"));
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("folder.png")));
    const Status status = export_timeline(*view_, options(folder));
    QVERIFY(!status.ok());
    const std::string& message = status.error().message;
    QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
    QVERIFY2(message.rfind(folder.toStdString() + ": is a directory", 0) == 0, message.c_str());
    QVERIFY(QFileInfo(folder).isDir());
    QVERIFY(entries(folder).isEmpty());
    QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("folder.png")});
  }

  void readOnlyFolderIsRefusedAndLeftEmpty() {
    QTemporaryDir dir;
    QVERIFY(::chmod(QFile::encodeName(dir.path()).constData(), 0755) == 0);  // nobody may look inside
    const QString folder = dir.filePath(QStringLiteral("readonly"));
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("readonly")));
    QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0555) == 0);
    const QString out = folder + QStringLiteral("/out.png");
    Status status = ok_status();
    {
      const ActAsUnprivileged unprivileged;
      status = export_timeline(*view_, options(out));
    }
    QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0755) == 0);  // so QTemporaryDir can remove it
    QVERIFY(!status.ok());
    const std::string& message = status.error().message;
    QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
    QVERIFY2(message.rfind(out.toStdString() + ": ", 0) == 0, message.c_str());
    QVERIFY2(message.find("Permission denied") != std::string::npos, message.c_str());
    QVERIFY(entries(folder).isEmpty());
  }

  // A write that fails half way (here at a file size limit, as on a full disk) leaves the file it would have
  // replaced as it was, and removes its temporary file.
  void failedWriteLeavesTheTargetAsItWas() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("keep.png"));
    QFile old(path);
    QVERIFY(old.open(QIODevice::WriteOnly) && old.write("precious") == 8);
    old.close();
    struct rlimit previous {};
    QVERIFY(::getrlimit(RLIMIT_FSIZE, &previous) == 0);
    struct rlimit small = previous;
    small.rlim_cur = 1024;                                  // the PNG is tens of kilobytes
    const auto previous_xfsz = ::signal(SIGXFSZ, SIG_IGN);  // the write then fails with EFBIG
    QVERIFY(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    const Status status = export_timeline(*view_, options(path));
    QVERIFY(::setrlimit(RLIMIT_FSIZE, &previous) == 0);
    ::signal(SIGXFSZ, previous_xfsz);
    QVERIFY(!status.ok());
    const std::string& message = status.error().message;
    QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
    QVERIFY2(message.rfind(path.toStdString() + ": write failed: ", 0) == 0, message.c_str());
    QVERIFY2(message.find("is unchanged") != std::string::npos, message.c_str());
    QCOMPARE(read_all(path), QByteArray("precious"));
    QCOMPARE(entries(dir.path()), QStringList{QStringLiteral("keep.png")});
  }

  // The compare and classroom tabs' pictures, and gtv's --*-shot modes, go the same way.
  void widgetPicturesFollowTheSameRules() {
    QTemporaryDir dir;
    QLabel label(QStringLiteral("a widget"));
    label.resize(200, 80);
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("real")));
    for (const char* suffix : {"png", "svg", "pdf"}) {
      const QString name = QStringLiteral("widget.%1").arg(QLatin1String(suffix));
      const QString link = dir.filePath(name);
      QVERIFY(::symlink(QFile::encodeName(QStringLiteral("real/") + name).constData(),
                        QFile::encodeName(link).constData()) == 0);
      const Status status = export_widget(label, link);
      QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
      QVERIFY(QFileInfo(link).isSymLink());
      QVERIFY(QFileInfo(dir.filePath(QStringLiteral("real/") + name)).size() > 100);
    }
    QCOMPARE(entries(dir.filePath(QStringLiteral("real"))),
             (QStringList{QStringLiteral("widget.pdf"), QStringLiteral("widget.png"), QStringLiteral("widget.svg")}));
    const Status onto_folder = export_widget(label, dir.filePath(QStringLiteral("real")) + QStringLiteral("/"));
    QVERIFY(!onto_folder.ok());

    const QImage picture = label.grab().toImage();
    const QString shot = dir.filePath(QStringLiteral("shot.png"));
    QVERIFY(save_picture(picture, shot).ok());
    QCOMPARE(QImage(shot).size(), picture.size());
    const Status unknown = save_picture(picture, dir.filePath(QStringLiteral("shot.nosuchformat")));
    QVERIFY(!unknown.ok());
    QCOMPARE(QString::fromStdString(unknown.error().message),
             dir.filePath(QStringLiteral("shot.nosuchformat")) + QStringLiteral(": could not write the picture"));
    const QString folder = dir.filePath(QStringLiteral("folder.png"));
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("folder.png")));
    const Status onto_dir = save_picture(picture, folder);
    QVERIFY(!onto_dir.ok());
    QVERIFY2(onto_dir.error().message.find("is a directory") != std::string::npos, onto_dir.error().message.c_str());
    QCOMPARE(entries(dir.path()),
             (QStringList{QStringLiteral("folder.png"), QStringLiteral("real"), QStringLiteral("shot.png"),
                          QStringLiteral("widget.pdf"), QStringLiteral("widget.png"), QStringLiteral("widget.svg")}));
  }
};

}  // namespace gtv::ui

QTEST_MAIN(gtv::ui::ExportTargetTest)
#include "export_target_test.moc"
