#include "json/event_fields.h"

#include <cmath>
#include <cstring>

#include "gtv/model/kineto_names.h"
#include "json/number_text.h"

namespace gtv::io {
namespace {

bool key_is(const od::raw_json_string& key, std::string_view name) { return key.unsafe_is_equal(name); }
bool key_is(std::string_view key, std::string_view name) { return key == name; }
char first_char(const od::raw_json_string& key) { return key.raw()[0]; }
char first_char(std::string_view key) { return key.empty() ? '\0' : key[0]; }

// Known "args" keys; Key is a raw key (fast path) or an unescaped one (when the phase is not known yet).
template <typename Key>
bool read_known_arg(const Key& key, od::value& v, RawArgs& a);

// Integer from a JSON number (decimals are rounded), without going through double.
bool number_token_as_int(od::value& value, std::int64_t& out, int scale_digits = 0) {
  // Plain integers (most args) through simdjson; a failed get_int64 does not consume the value.
  if (scale_digits == 0 && value.get_int64().get(out) == simdjson::SUCCESS) return true;
  std::string_view token = value.raw_json_token();
  if (token.empty() || !(token[0] == '-' || (token[0] >= '0' && token[0] <= '9'))) return false;
  return parse_scaled_decimal(token, scale_digits, out);
}

template <typename T>
void set_int(od::value& value, T& out, int scale_digits = 0) {
  std::int64_t v = 0;
  if (number_token_as_int(value, v, scale_digits)) out = static_cast<T>(v);
}

void read_dim3(od::value& value, std::int32_t (&out)[3]) {
  od::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) return;
  int i = 0;
  for (auto item : array) {
    od::value v;
    if (item.get(v) != simdjson::SUCCESS) return;
    if (i < 3) set_int(v, out[i]);
    ++i;
  }
}

// Args gtv writes for other viewers only, or that only number the events of the file: not kept.
bool is_dropped_arg(std::string_view key) {
  return key == kineto::kArgMemoryBandwidth || key == kineto::kArgEventIndex;
}

// The JSON text of a value (consumed), whatever its type.
simdjson::simdjson_result<std::string_view> raw_json_of(od::value& value) {
  od::json_type type;
  if (auto e = value.type().get(type); e != simdjson::SUCCESS) return e;
  if (type == od::json_type::array) {
    od::array array;
    if (auto e = value.get_array().get(array); e != simdjson::SUCCESS) return e;
    return array.raw_json();
  }
  if (type == od::json_type::object) {
    od::object object;
    if (auto e = value.get_object().get(object); e != simdjson::SUCCESS) return e;
    return object.raw_json();
  }
  return value.raw_json_token();
}

// JSON text without whitespace outside strings.
void append_compact_json(std::string_view json, std::string& out) {
  bool in_string = false, escaped = false;
  for (const char c : json) {
    if (in_string) {
      out.push_back(c);
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '"') in_string = true;
    out.push_back(c);
  }
}

std::string_view string_or_empty(od::value& value) {
  std::string_view s;
  if (value.get_string().get(s) != simdjson::SUCCESS) return {};
  return s;
}

}  // namespace

void append_extra_arg(std::string& text, std::string_view key, std::string_view value_json) {
  const auto append_sized = [&text](std::string_view s, bool compact) {
    const std::size_t at = text.size();
    text.append(sizeof(std::uint32_t), '\0');
    if (compact)
      append_compact_json(s, text);
    else
      text.append(s);
    const auto size = static_cast<std::uint32_t>(text.size() - at - sizeof(std::uint32_t));
    std::memcpy(text.data() + at, &size, sizeof size);
  };
  append_sized(key, false);
  append_sized(value_json, true);
}

std::size_t FieldReader::offset_of(const char* location) const {
  if (location == nullptr || location <= buffer_) return 0;
  return static_cast<std::size_t>(location - buffer_ - 1);  // minus the '[' the chunk was wrapped in
}

bool FieldReader::syntax(simdjson::error_code error, const char* location) {
  result_.kind = ChunkResult::Kind::Syntax;
  result_.offset = offset_of(location ? location : last_location_);
  result_.message = simdjson::error_message(error);
  return false;
}

bool FieldReader::semantic(const RawEvent& ev, std::string message) {
  result_.kind = ChunkResult::Kind::Semantic;
  result_.offset = static_cast<std::size_t>(ev.offset);
  result_.event_index = ev.index;
  result_.message = std::move(message);
  return false;
}

ChunkResult FieldReader::read_chunk(od::parser& parser, simdjson::padded_string_view json, std::uint64_t first_index) {
  od::document doc;
  if (auto e = parser.iterate(json).get(doc); e != simdjson::SUCCESS) {
    syntax(e, nullptr);
    return result_;
  }
  od::array array;
  if (auto e = doc.get_array().get(array); e != simdjson::SUCCESS) {
    syntax(e, nullptr);
    return result_;
  }
  std::uint64_t index = first_index;
  for (auto item : array) {
    if (auto e = item.error(); e != simdjson::SUCCESS) {
      const char* loc = nullptr;
      if (doc.current_location().get(loc) != simdjson::SUCCESS) loc = nullptr;
      syntax(e, loc);
      return result_;
    }
    od::value& element = item.value_unsafe();  // used in place (see read_event)
    RawEvent& ev = events_.emplace_back();
    ev.index = index++;
    const char* loc = nullptr;
    if (element.current_location().get(loc) == simdjson::SUCCESS) last_location_ = loc;
    ev.offset = offset_of(last_location_);
    if (!read_event(element, ev)) return result_;
  }
  for (RawEvent& ev : events_)  // the text no longer moves
    if (ev.args.extra_bytes != 0)
      ev.args.extra = std::string_view(arg_text_).substr(ev.args.extra_offset, ev.args.extra_bytes);
  // The array must end where the chunk ends: a cut after a "}]" inside a later value would otherwise close the
  // wrapper early and silently drop the rest.
  const char* rest = nullptr;
  if (doc.current_location().get(rest) != simdjson::OUT_OF_BOUNDS) syntax(simdjson::TAPE_ERROR, rest);
  return result_;
}

bool FieldReader::read_event(od::value& element, RawEvent& ev) {
  od::object object;
  if (auto e = element.get_object().get(object); e != simdjson::SUCCESS) {
    if (e == simdjson::INCORRECT_TYPE) return semantic(ev, "is not an object");
    return syntax(e, nullptr);
  }
  bool counters_open = false;
  const std::size_t counters_before = counters_.size();
  for (auto item : object) {
    // The field is used where the iterator built it: moving it out costs a store-forwarding stall per field.
    if (auto e = item.error(); e != simdjson::SUCCESS) return syntax(e, nullptr);
    if (!read_field(item.value_unsafe(), ev, counters_open)) return false;
  }
  if (ev.ph != "C") {  // args were read before ph: not a counter after all
    counters_.resize(counters_before);
    ev.args.counter_count = 0;
  }
  return true;
}

bool FieldReader::read_field(od::field& field, RawEvent& ev, bool& counters_open) {
  const od::raw_json_string key = field.key();
  od::value& value = field.value();
  switch (key.raw()[0]) {
    case 'p':
      if (key_is(key, "ph")) return read_text(value, ev.ph, "ph", ev);
      if (key_is(key, "pid")) return read_id(value, ev.pid, "pid", ev);
      break;
    case 't':
      if (key_is(key, "ts")) return ev.has_ts = true, read_time(value, ev.ts_ns, "ts", ev);
      if (key_is(key, "tid")) return read_id(value, ev.tid, "tid", ev);
      break;
    case 'd':
      if (key_is(key, "dur")) return ev.has_dur = true, read_time(value, ev.dur_ns, "dur", ev);
      break;
    case 'n':
      if (key_is(key, "name")) return read_text(value, ev.name, "name", ev);
      break;
    case 'c':
      if (key_is(key, "cat")) return read_text(value, ev.cat, "cat", ev);
      break;
    case 'a':
      if (key_is(key, "args")) {
        counters_open = ev.ph.empty() || ev.ph == "C";
        return read_args(value, ev, counters_open);
      }
      break;
    case 'i':
      if (key_is(key, "id")) return read_id(value, ev.id, "id", ev);
      break;
    case 's':
      if (key_is(key, "s")) ev.scope = string_or_empty(value);
      break;
    case 'b':
      if (key_is(key, "bp")) ev.bp = string_or_empty(value);
      break;
    default:
      break;
  }
  return true;
}

bool FieldReader::read_text(od::value& value, std::string_view& out, const char* what, const RawEvent& ev) {
  if (auto e = value.get_string().get(out); e != simdjson::SUCCESS) {
    if (e == simdjson::INCORRECT_TYPE) return semantic(ev, std::string("'") + what + "' is not a string");
    return syntax(e, nullptr);
  }
  return true;
}

bool FieldReader::read_id(od::value& value, IdToken& out, const char* what, const RawEvent& ev) {
  od::json_type type;
  if (auto e = value.type().get(type); e != simdjson::SUCCESS) return syntax(e, nullptr);
  if (type == od::json_type::string) {
    out.type = IdToken::Type::String;
    return read_text(value, out.text, what, ev);
  }
  if (type == od::json_type::number) {
    if (number_token_as_int(value, out.number)) {
      out.type = IdToken::Type::Number;
    } else {  // beyond int64 (e.g. a 64-bit flow id): keep its text, which maps to a stable number like a string
      out.type = IdToken::Type::String;
      out.text = value.raw_json_token();
      while (!out.text.empty() &&
             (out.text.back() == ' ' || out.text.back() == '\n' || out.text.back() == '\r' || out.text.back() == '\t'))
        out.text.remove_suffix(1);
    }
    return true;
  }
  return semantic(ev, std::string("'") + what + "' is not a number or string");
}

bool FieldReader::read_time(od::value& value, TimeNs& out, const char* what, const RawEvent& ev) {
  od::json_type type;
  if (auto e = value.type().get(type); e != simdjson::SUCCESS) return syntax(e, nullptr);
  if (type != od::json_type::number) return semantic(ev, std::string("'") + what + "' is not a number");
  if (!parse_us_as_ns(value.raw_json_token(), out)) return semantic(ev, std::string("'") + what + "' is out of range");
  return true;
}

bool FieldReader::read_args(od::value& value, RawEvent& ev, bool collect_counters) {
  od::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) return true;  // args of another shape: ignored
  for (auto item : object) {
    if (auto e = item.error(); e != simdjson::SUCCESS) return syntax(e, nullptr);
    od::field& field = item.value_unsafe();
    if (collect_counters) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key); e != simdjson::SUCCESS) return syntax(e, nullptr);
      od::value& value_of_field = field.value();
      if (ev.ph.empty() && read_known_arg(key, value_of_field, ev.args)) continue;
      double number = 0;
      if (value_of_field.get_double().get(number) == simdjson::SUCCESS) {
        counters_.emplace_back(key, number);
        ++ev.args.counter_count;
        if (ev.args.counter_count == 1) ev.args.counter_first = static_cast<std::uint32_t>(counters_.size() - 1);
      }
      continue;
    }
    if (!read_known_arg(field.key(), field.value(), ev.args) && !keep_extra_arg(field, ev)) return false;
  }
  return true;
}

bool FieldReader::keep_extra_arg(od::field& field, RawEvent& ev) {
  std::string_view key;
  if (auto e = field.unescaped_key().get(key); e != simdjson::SUCCESS) return syntax(e, nullptr);
  if (is_dropped_arg(key)) return true;
  std::string_view json;
  if (auto e = raw_json_of(field.value()).get(json); e != simdjson::SUCCESS) return syntax(e, nullptr);
  if (ev.args.extra_bytes == 0) ev.args.extra_offset = static_cast<std::uint32_t>(arg_text_.size());
  append_extra_arg(arg_text_, key, json);
  ev.args.extra_bytes = static_cast<std::uint32_t>(arg_text_.size() - ev.args.extra_offset);
  return true;
}

namespace {

template <typename Key>
bool read_known_arg(const Key& key, od::value& v, RawArgs& a) {
  switch (first_char(key)) {
    case 'E':
      if (!key_is(key, kineto::kArgExternalId)) return false;
      // Not a number (no known writer does that): kept as an extra arg.
      if (!number_token_as_int(v, a.external_id)) return false;
      break;
    case 'd':
      if (key_is(key, kineto::kArgDevice))
        a.has_device = number_token_as_int(v, a.device);
      else if (key_is(key, kineto::kArgDstKind))
        a.dst_kind = string_or_empty(v);
      else if (key_is(key, kineto::kArgDstDevice))
        set_int(v, a.dst_device);
      else
        return false;
      break;
    case 's':
      if (key_is(key, kineto::kArgStream))
        a.has_stream = number_token_as_int(v, a.stream);
      else if (key_is(key, kineto::kArgSharedMemory))
        set_int(v, a.kernel.shared_memory_bytes);
      else if (key_is(key, kineto::kArgSortIndex))
        a.has_sort_index = number_token_as_int(v, a.sort_index);
      else if (key_is(key, kineto::kArgSrcKind))
        a.src_kind = string_or_empty(v);
      else
        return false;
      break;
    case 'c':
      if (key_is(key, kineto::kArgCorrelation))
        set_int(v, a.correlation);
      else if (key_is(key, kineto::kArgCopyKind))
        a.copy_kind = string_or_empty(v);
      else
        return false;
      break;
    case 'g':
      if (key_is(key, kineto::kArgGrid))
        read_dim3(v, a.kernel.grid);
      else if (key_is(key, kineto::kArgGraphId))
        set_int(v, a.kernel.graph_id);
      else if (key_is(key, kineto::kArgGraphNodeId))
        set_int(v, a.kernel.graph_node_id);
      else if (key_is(key, "gtv_tid"))
        a.has_gtv_tid = number_token_as_int(v, a.gtv_tid);
      else if (key_is(key, "gtv_lane"))
        a.gtv_lane = string_or_empty(v);
      else if (key_is(key, "gtv_range"))
        a.gtv_range = true;
      else
        return false;
      break;
    case 'b':
      if (key_is(key, kineto::kArgBlock))
        read_dim3(v, a.kernel.block);
      else if (key_is(key, kineto::kArgBytes))
        set_int(v, a.bytes);
      else if (key_is(key, kineto::kArgBlocksPerSm))
        set_int(v, a.kernel.blocks_per_sm_x100, 2);
      else
        return false;
      break;
    case 'r':
      if (key_is(key, kineto::kArgRegistersPerThread))
        set_int(v, a.kernel.registers_per_thread);
      else
        return false;
      break;
    case 'e':
      if (key_is(key, kineto::kArgOccupancy))
        set_int(v, a.kernel.occupancy_pct);
      else
        return false;
      break;
    case 'm':
      if (key_is(key, kineto::kArgMemoryKind))
        a.memory_kind = string_or_empty(v);
      else
        return false;
      break;
    case 'v':
      if (key_is(key, kineto::kArgValue))
        set_int(v, a.memset_value);
      else
        return false;
      break;
    case 'n':
      if (key_is(key, kineto::kArgName))
        a.text_name = string_or_empty(v);
      else
        return false;
      break;
    case 'l':
      if (key_is(key, kineto::kArgLabels))
        a.labels = string_or_empty(v);
      else
        return false;
      break;
    default:
      return false;
  }
  return true;
}

}  // namespace

}  // namespace gtv::io
