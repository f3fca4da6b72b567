#include "gtv/io/output_file.h"

#include <memory>

#include "output/file_sink.h"

namespace gtv::io {

Status write_output_file(const std::string& path, std::string_view bytes) {
  Expected<std::unique_ptr<FileSink>> sink = FileSink::open(path, /*gzip=*/false);
  if (!sink) return sink.error();
  (void)(*sink)->write(bytes);  // a failed write is recorded in the sink and reported by commit()
  return (*sink)->commit();
}

}  // namespace gtv::io
