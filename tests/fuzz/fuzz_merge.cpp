// libFuzzer target: merges up to 8 rank files as `gtv-cli merge` does. Byte 0 is the reader's settings
// (fuzz_input.h); byte 1 the merge's: bit 0 aligns on collectives, bit 1 allows far-apart files, bit 2 adds a
// manual shift to rank (byte 2 % 8) of (int8) byte 3 * 2^(byte 2 / 8 % 64) ns, up to the edges of the time range.
// The rest holds the files, separated by "\n#rank\n". A merge that succeeds must give a well-formed trace that
// keeps its shape when written and read back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.h"
#include "gtv/io/trace_file.h"
#include "gtv/model/rank_merge.h"
#include "trace_shape.h"

namespace {

constexpr std::string_view kSeparator = "\n#rank\n";
constexpr std::size_t kMaxFiles = 8;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gtv;
  if (size < 4) return 0;
  fuzz::FuzzInput settings;
  if (!fuzz::decode_input(data, 1, settings)) return 0;
  RankMergeOptions options;
  options.clock = (data[1] & 1) != 0 ? ClockMethod::Collectives : ClockMethod::WallClock;
  options.allow_far_apart = (data[1] & 2) != 0;
  if ((data[1] & 4) != 0) {
    const int power = (data[2] / 8) % 64;
    const auto factor = static_cast<std::int64_t>(static_cast<std::int8_t>(data[3]));
    options.manual_shift_ns[data[2] % kMaxFiles] = power >= 56 ? factor : factor * (std::int64_t{1} << power);
  }
  std::string_view rest(reinterpret_cast<const char*>(data + 4), size - 4);
  std::vector<Trace> traces;
  std::vector<std::string> names;
  while (traces.size() < kMaxFiles) {
    const std::size_t cut = rest.find(kSeparator);
    const std::string_view file = rest.substr(0, cut);
    Expected<Trace> trace = io::read_trace_from_memory(file, "rank", settings.options);
    if (trace) {
      fuzz::check_model(*trace);
      traces.push_back(std::move(trace).value());
      names.push_back("rank-file-" + std::to_string(traces.size()));
    }
    if (cut == std::string_view::npos) break;
    rest.remove_prefix(cut + kSeparator.size());
  }
  std::vector<RankFile> files;
  files.reserve(traces.size());
  for (std::size_t i = 0; i < traces.size(); ++i) files.push_back({&traces[i], names[i]});
  const Expected<RankMerge> merged = merge_ranks(files, options);
  if (!merged) {
    fuzz::require(!merged.error().message.empty(), "merge failed with an empty message");
    return 0;
  }
  fuzz::check_model(merged->trace);
  const std::string written = io::write_trace_to_string(merged->trace);
  const Expected<Trace> reread = io::read_trace_from_memory(written, "fuzz-merged", {});
  if (!reread) fuzz::invariant_broken("the merged trace does not read back: " + reread.error().message);
  fuzz::check_same_shape(merged->trace, *reread, "merge + write + re-read");
  return 0;
}
