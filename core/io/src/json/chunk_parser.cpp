#include "json/chunk_parser.h"

#include <cstring>

#include "json/event_fields.h"

namespace gtv::io {

ChunkParser::ChunkParser() : impl_(std::make_unique<Impl>()) {}
ChunkParser::~ChunkParser() = default;

ChunkResult ChunkParser::parse(std::string_view elements, std::uint64_t first_index) {
  std::memcpy(buffer_for(elements.size()), elements.data(), elements.size());
  return parse_buffer(elements.size(), first_index);
}

char* ChunkParser::buffer_for(std::size_t size) {
  Impl& im = *impl_;
  const std::size_t needed = size + 2 + simdjson::SIMDJSON_PADDING;
  if (im.capacity < needed) {
    im.capacity = needed + needed / 4;
    im.buffer = std::make_unique_for_overwrite<char[]>(im.capacity);
  }
  return im.buffer.get() + 1;  // after the '[' parse_buffer puts first
}

ChunkResult ChunkParser::parse_buffer(std::size_t size, std::uint64_t first_index) {
  events_.clear();
  counter_values_.clear();
  arg_text_.clear();
  Impl& im = *impl_;
  char* buf = im.buffer.get();
  buf[0] = '[';
  buf[size + 1] = ']';
  std::memset(buf + size + 2, 0, simdjson::SIMDJSON_PADDING);
  FieldReader reader{buf, events_, counter_values_, arg_text_};
  return reader.read_chunk(im.parser, simdjson::padded_string_view(buf, size + 2, im.capacity), first_index);
}

bool ChunkParser::can_parse_in_place(std::size_t readable_after) {
  return readable_after >= simdjson::SIMDJSON_PADDING + 1;
}

ChunkResult ChunkParser::parse_in_place(char* elements, std::size_t size, std::size_t readable_after,
                                        std::uint64_t first_index) {
  events_.clear();
  counter_values_.clear();
  arg_text_.clear();
  char* begin = elements - 1;
  const char saved_begin = *begin;
  const char saved_end = elements[size];
  *begin = '[';
  elements[size] = ']';
  FieldReader reader{begin, events_, counter_values_, arg_text_};
  ChunkResult result = reader.read_chunk(
      impl_->parser, simdjson::padded_string_view(begin, size + 2, size + 1 + readable_after), first_index);
  *begin = saved_begin;
  elements[size] = saved_end;
  return result;
}

}  // namespace gtv::io
