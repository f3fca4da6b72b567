#pragma once
// One trace event as it appears in the file, before it is turned into model events. String views point into the
// parser's buffers and live until the next chunk is parsed.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtv/base/time.h"
#include "gtv/model/event.h"

namespace gtv::io {

// pid, tid and flow ids may be numbers or strings.
struct IdToken {
  enum class Type : std::uint8_t { None, Number, String };
  Type type = Type::None;
  std::int64_t number = 0;
  std::string_view text;
};

// The "args" keys gtv understands (Kineto's names, plus a few gtv_* keys for a perfect round trip).
struct RawArgs {
  std::int64_t device = -1;
  std::int64_t stream = -1;
  std::uint64_t correlation = kNoCorrelation;
  KernelDetail kernel;
  std::int64_t bytes = 0;
  std::int64_t memset_value = 0;
  std::int32_t dst_device = -1;
  std::string_view copy_kind, src_kind, dst_kind, memory_kind;
  std::string_view text_name;  // args.name of M events
  std::string_view labels;     // args.labels of process_labels
  std::int64_t sort_index = 0;
  std::int64_t gtv_tid = 0;
  std::int64_t external_id = kNoExternalId;  // Kineto's "External id"
  std::string_view gtv_lane;                 // "host" or "gpu": overrides the lane kind implied by the category
  // Args gtv does not model, kept as they are (see for_each_extra_arg); empty for most events.
  std::string_view extra;
  std::uint32_t extra_offset = 0, extra_bytes = 0;  // where extra lies in the parser's text until the chunk ends
  std::uint32_t counter_first = 0;                  // numeric args of C events, in the parser's counter_values
  std::uint32_t counter_count = 0;
  bool has_device = false, has_stream = false, has_sort_index = false, has_gtv_tid = false, gtv_range = false;
};

struct RawEvent {
  std::uint64_t index = 0;   // position in the event array
  std::uint64_t offset = 0;  // byte offset of the event in the file (inflated data for gzip)
  std::string_view ph, name, cat, scope, bp;
  IdToken pid, tid, id;
  TimeNs ts_ns = 0;
  TimeNs dur_ns = 0;
  bool has_ts = false, has_dur = false;
  RawArgs args;
};

using CounterValue = std::pair<std::string_view, double>;

// RawArgs::extra holds (key, JSON value) pairs, each string preceded by its length in 4 bytes.
void append_extra_arg(std::string& text, std::string_view key, std::string_view value_json);
template <typename F>
void for_each_extra_arg(std::string_view extra, F&& f) {
  auto take = [&extra]() {
    std::uint32_t size = 0;
    std::memcpy(&size, extra.data(), sizeof size);
    const std::string_view text = extra.substr(sizeof size, size);
    extra.remove_prefix(sizeof size + size);
    return text;
  };
  while (extra.size() >= 2 * sizeof(std::uint32_t)) {
    const std::string_view key = take();
    const std::string_view value = take();
    f(key, value);
  }
}

}  // namespace gtv::io
