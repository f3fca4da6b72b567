#pragma once
// simdjson On Demand reading of event objects into RawEvents (used by ChunkParser only).
#include <simdjson.h>

#include <memory>
#include <string>
#include <vector>

#include "json/chunk_parser.h"

namespace gtv::io {

namespace od = simdjson::ondemand;

struct ChunkParser::Impl {
  od::parser parser;
  std::unique_ptr<char[]> buffer;
  std::size_t capacity = 0;
};

class FieldReader {
 public:
  FieldReader(const char* buffer, std::vector<RawEvent>& events, std::vector<CounterValue>& counters,
              std::string& arg_text)
      : buffer_(buffer), events_(events), counters_(counters), arg_text_(arg_text) {}

  ChunkResult read_chunk(od::parser& parser, simdjson::padded_string_view json, std::uint64_t first_index);

 private:
  // Returns false with result_ set on an error.
  bool read_event(od::value& element, RawEvent& ev);
  bool read_field(od::field& field, RawEvent& ev, bool& counters_open);
  bool read_args(od::value& value, RawEvent& ev, bool collect_counters);
  bool keep_extra_arg(od::field& field, RawEvent& ev);
  bool read_id(od::value& value, IdToken& out, const char* what, const RawEvent& ev);
  bool read_time(od::value& value, TimeNs& out, const char* what, const RawEvent& ev);
  bool read_text(od::value& value, std::string_view& out, const char* what, const RawEvent& ev);

  bool syntax(simdjson::error_code error, const char* location);
  bool semantic(const RawEvent& ev, std::string message);
  [[nodiscard]] std::size_t offset_of(const char* location) const;

  const char* buffer_;
  std::vector<RawEvent>& events_;
  std::vector<CounterValue>& counters_;
  std::string& arg_text_;
  ChunkResult result_;
  const char* last_location_ = nullptr;
};

}  // namespace gtv::io
