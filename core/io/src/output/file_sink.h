#pragma once
// The file sink of every trace gtv writes (gtv-cli convert and run -o, the GUI's save): plain or gzip, with the
// rules of output_target.h so that writing never destroys what the output path names.
#include <memory>
#include <string>

#include "gtv/base/expected.h"
#include "output/json_out.h"
#include "output/output_target.h"

namespace gtv::io {

// Writes into a temporary file next to the target and moves it into place on commit() (or, for a FIFO or device,
// straight into the target). Without commit() the temporary file is removed; it is also removed if SIGINT, SIGTERM
// or SIGHUP ends the process meanwhile. A failed write (full disk, file size limit) leaves the target as it was.
class FileSink : public Sink {
 public:
  ~FileSink() override;
  [[nodiscard]] static Expected<std::unique_ptr<FileSink>> open(const std::string& path, bool gzip);
  bool write(std::string_view bytes) override;
  [[nodiscard]] Status commit();

 private:
  FileSink() = default;
  [[nodiscard]] Status open_temp();
  [[nodiscard]] Status open_stream();
  [[nodiscard]] Status start_gzip();
  [[nodiscard]] Status close_output();
  [[nodiscard]] Status copy_temp_into_target();
  [[nodiscard]] Status reserve_space(int in, int out) const;
  void remove_temp();
  std::string shown_;  // the path as the user gave it, for messages
  OutputTarget target_;
  std::string temp_path_;
  int fd_ = -1;
  void* gz_ = nullptr;  // gzFile when compressing
  std::string error_;
};

}  // namespace gtv::io
