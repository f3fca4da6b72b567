#pragma once
// The bundled recordings (resources/traces/<folder>/<name>) for tests that check a sentence on a real run.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "gtv/io/trace_file.h"

namespace gtv::analysis::testing {

inline Trace bundled_recording(const std::string& folder, const std::string& name) {
  const std::filesystem::path path =
      std::filesystem::path(GTV_TEST_DATA_DIR).parent_path().parent_path() / "resources" / "traces" / folder / name;
  Expected<Trace> trace = io::read_trace(path.string());
  if (!trace) throw std::runtime_error(trace.error().message);
  return std::move(trace).value();
}

}  // namespace gtv::analysis::testing
