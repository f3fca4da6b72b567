// libFuzzer target: what-if on any trace with any change list. Byte 0 is the reader's settings (fuzz_input.h); the
// rest is a line of changes separated by spaces ("streams no-sync=cudaDeviceSynchronize placement=0,1"), a newline,
// and the trace. A change list that parses and a trace that reads go through whatif::predict and the three report
// formats: a refusal is one line with a message; a prediction keeps its band around it and its numbers
// non-negative.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.h"
#include "gtv/io/trace_file.h"
#include "gtv/whatif/change.h"
#include "gtv/whatif/predict.h"
#include "trace_shape.h"

namespace {

constexpr std::size_t kMaxChanges = 4;

void require_one_line(const std::string& message, const char* what) {
  gtv::fuzz::require(!message.empty(), what);
  gtv::fuzz::require(message.find('\n') == std::string::npos, what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gtv;
  if (size < 2) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t newline = rest.find('\n');
  if (newline == std::string_view::npos) return 0;
  std::string_view line = rest.substr(0, newline);
  rest.remove_prefix(newline + 1);
  std::vector<whatif::Change> changes;
  while (!line.empty() && changes.size() < kMaxChanges) {
    const std::size_t space = line.find(' ');
    const std::string_view word = line.substr(0, space);
    line = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
    if (word.empty()) continue;
    Expected<whatif::Change> change = whatif::parse_change(word);
    if (!change) {
      require_one_line(change.error().message, "a change that does not parse has a one-line message");
      return 0;
    }
    changes.push_back(std::move(change).value());
  }
  if (changes.empty()) return 0;
  if (Expected<Ok> ok = whatif::check_compatible(changes); !ok) {
    require_one_line(ok.error().message, "changes that conflict have a one-line message");
    return 0;
  }
  // The settings byte before the trace, so that bit 6 gzips it as in the other targets.
  std::string bytes(1, static_cast<char>(data[0]));
  bytes.append(rest);
  fuzz::FuzzInput input;
  if (!fuzz::decode_input(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), input)) return 0;
  const Expected<Trace> trace = io::read_trace_from_memory(input.file, "fuzz", input.options);
  if (!trace) return 0;
  fuzz::check_model(*trace);
  const Expected<whatif::Prediction> p = whatif::predict(*trace, changes);
  if (!p) {
    require_one_line(p.error().message, "a change that does not apply has a one-line message");
    return 0;
  }
  fuzz::require(p->recorded_ns >= 0 && p->replayed_ns >= 0, "a window of negative length");
  fuzz::require(p->low_ns >= 0 && p->low_ns <= p->predicted_ns && p->predicted_ns <= p->high_ns,
                "the band does not hold the prediction");
  for (const whatif::Format f : {whatif::Format::Text, whatif::Format::Markdown, whatif::Format::Json})
    fuzz::require(!whatif::format_prediction(*p, changes, f).empty(), "empty what-if report");
  return 0;
}
