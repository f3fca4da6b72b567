#pragma once
// Parses a chunk of the traceEvents array (complete elements, no brackets) with simdjson On Demand into RawEvents.
// Nothing reaches the model until a whole chunk parsed, so a chunk that was cut at the wrong place can be retried.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "json/raw_event.h"

namespace gtv::io {

struct ChunkResult {
  enum class Kind : std::uint8_t { Ok, Syntax, Semantic };
  Kind kind = Kind::Ok;
  std::size_t offset = 0;         // byte offset of the error within the chunk's elements text
  std::uint64_t event_index = 0;  // index of the event where a semantic error was found
  std::string message;
};

class ChunkParser {
 public:
  ChunkParser();
  ~ChunkParser();
  ChunkParser(const ChunkParser&) = delete;
  ChunkParser& operator=(const ChunkParser&) = delete;

  // elements: text between '[' and ']' that holds whole elements; first_index: index of its first element.
  [[nodiscard]] ChunkResult parse(std::string_view elements, std::uint64_t first_index);
  // The same in two steps, for callers that fill the parser's own buffer: buffer_for(size) returns where the
  // size bytes of elements go, then parse_buffer(size, ...) parses them.
  [[nodiscard]] char* buffer_for(std::size_t size);
  [[nodiscard]] ChunkResult parse_buffer(std::size_t size, std::uint64_t first_index);
  // The same without copying: elements[-1] and elements[size] are overwritten with '[' and ']' while parsing and
  // restored after; readable_after bytes after elements[size] must be readable (simdjson reads ahead).
  [[nodiscard]] ChunkResult parse_in_place(char* elements, std::size_t size, std::size_t readable_after,
                                           std::uint64_t first_index);
  [[nodiscard]] static bool can_parse_in_place(std::size_t readable_after);

  [[nodiscard]] const std::vector<RawEvent>& events() const { return events_; }
  [[nodiscard]] const std::vector<CounterValue>& counter_values() const { return counter_values_; }
  // Renumbers the events parsed with first_index 0 once the index of the chunk's first element is known.
  void set_first_index(std::uint64_t first_index) {
    for (RawEvent& ev : events_) ev.index += first_index;
  }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<RawEvent> events_;
  std::vector<CounterValue> counter_values_;
  std::string arg_text_;  // the chunk's extra args (RawArgs::extra points into it)
};

}  // namespace gtv::io
