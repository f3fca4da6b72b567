#include <simdjson.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "gtv/ranks/summary_file.h"

namespace gtv::ranks {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

Expected<std::string> gunzip(std::string_view bytes, const std::string& name) {
  if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f || static_cast<unsigned char>(bytes[1]) != 0x8b)
    return Error{name + ": not a gtv rank summary (.gtvsum files are gzip-compressed; this one is not)"};
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return Error{name + ": cannot start gzip decompression"};
  std::string out;
  char buffer[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
    if (out.size() > kMaxSummaryJsonBytes) {
      inflateEnd(&z);
      return Error{name + ": decompresses to more than " + std::to_string(kMaxSummaryJsonBytes >> 20) +
                   " MiB: not a rank summary"};
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    return Error{name + (rc == Z_BUF_ERROR || rc == Z_OK
                             ? ": truncated (the gzip stream ends early)"
                             : ": corrupt gzip data (" + std::string(z.msg ? z.msg : "?") + ")")};
  return out;
}

// Reads the fields of one JSON object; the first failure is kept and names the field.
class Fields {
 public:
  Fields(object o, std::string where) : o_(o), where_(std::move(where)) {}
  std::int64_t integer(const char* key) {
    std::int64_t v = 0;
    if (o_[key].get_int64().get(v) != simdjson::SUCCESS) fail(key, "an integer");
    return v;
  }
  std::string text(const char* key) {
    std::string_view v;
    if (o_[key].get_string().get(v) != simdjson::SUCCESS) fail(key, "a string");
    return std::string(v);
  }
  std::vector<std::int64_t> integers(const char* key) {
    std::vector<std::int64_t> out;
    array a;
    if (o_[key].get_array().get(a) != simdjson::SUCCESS) {
      fail(key, "an array of integers");
      return out;
    }
    for (element e : a) {
      std::int64_t v = 0;
      if (e.get_int64().get(v) != simdjson::SUCCESS) {
        fail(key, "an array of integers");
        return out;
      }
      out.push_back(v);
    }
    return out;
  }
  std::vector<std::string> texts(const char* key) {
    std::vector<std::string> out;
    array a;
    if (o_[key].get_array().get(a) != simdjson::SUCCESS) {
      fail(key, "an array of strings");
      return out;
    }
    for (element e : a) {
      std::string_view v;
      if (e.get_string().get(v) != simdjson::SUCCESS) {
        fail(key, "an array of strings");
        return out;
      }
      out.emplace_back(v);
    }
    return out;
  }
  bool has(const char* key) { return o_[key].error() == simdjson::SUCCESS; }
  object child(const char* key) {
    object c;
    if (o_[key].get_object().get(c) != simdjson::SUCCESS) fail(key, "an object");
    return c;
  }
  void set_error(const std::string& message) {
    if (error_.empty()) error_ = message;
  }
  void fail(std::string_view key, std::string_view what) {
    if (error_.empty()) error_ = where_ + std::string(key) + " is missing or not " + std::string(what);
  }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  object o_;
  std::string where_;
  std::string error_;
};

Status read_collectives(Fields& rank, RankSummary& s, const std::string& where) {
  Fields f(rank.child("collectives"), where + "collectives.");
  if (!rank.error().empty()) return Error{rank.error()};
  const std::int64_t count = f.integer("count");
  const std::vector<std::string> kinds = f.texts("kinds"), groups = f.texts("groups");
  const std::vector<std::int64_t> kind = f.integers("kind"), group = f.integers("group"), seq = f.integers("seq"),
                                  elements = f.integers("elements"), root = f.integers("root"),
                                  on_gpu = f.integers("on_gpu"), start = f.integers("start_ns"),
                                  end = f.integers("end_ns"), own_work = f.integers("own_work_ns");
  if (!f.error().empty()) return Error{f.error()};
  const auto n = static_cast<std::size_t>(count);
  for (const std::vector<std::int64_t>* column :
       {&kind, &group, &seq, &elements, &root, &on_gpu, &start, &end, &own_work})
    if (count < 0 || column->size() != n)
      return Error{where + "collectives: the columns do not all have count (" + std::to_string(count) + ") rows"};
  s.collectives.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    Collective& c = s.collectives[i];
    if (kind[i] < 0 || static_cast<std::size_t>(kind[i]) >= kinds.size() || group[i] < 0 ||
        static_cast<std::size_t>(group[i]) >= groups.size())
      return Error{where + "collectives: row " + std::to_string(i) + " names a kind or group the tables lack"};
    if (end[i] < start[i] || start[i] < kMinTraceTimeNs || end[i] > kMaxTraceTimeNs)
      return Error{where + "collectives: row " + std::to_string(i) +
                   " ends before it starts or lies outside [-2^62, 2^62) ns"};
    c.kind = kinds[static_cast<std::size_t>(kind[i])];
    c.group = groups[static_cast<std::size_t>(group[i])];
    c.seq = seq[i];
    c.elements = elements[i];
    c.root = root[i];
    c.on_gpu = on_gpu[i] != 0;
    c.start_ns = start[i];
    c.end_ns = end[i];
    if (own_work[i] < 0 || own_work[i] > end[i] - start[i])
      return Error{where + "collectives: row " + std::to_string(i) + " has own work outside [0, its length]"};
  }
  s.collective_own_work_ns = own_work;
  return ok_status();
}

Status read_steps(Fields& rank, RankSummary& s, const std::string& where) {
  Fields f(rank.child("steps"), where + "steps.");
  if (!rank.error().empty()) return Error{rank.error()};
  const std::int64_t count = f.integer("count");
  const std::vector<std::string> names = f.texts("name");
  const std::vector<std::int64_t> start = f.integers("start_ns"), end = f.integers("end_ns"),
                                  busy = f.integers("gpu_busy_ns"), comm = f.integers("communication_ns");
  if (!f.error().empty()) return Error{f.error()};
  const auto n = static_cast<std::size_t>(count);
  if (count < 0 || names.size() != n || start.size() != n || end.size() != n || busy.size() != n || comm.size() != n)
    return Error{where + "steps: the columns do not all have count (" + std::to_string(count) + ") rows"};
  for (std::size_t i = 0; i < n; ++i) {
    if (end[i] < start[i] || start[i] < kMinTraceTimeNs || end[i] > kMaxTraceTimeNs || busy[i] < 0 || comm[i] < 0 ||
        busy[i] > end[i] - start[i] || comm[i] > end[i] - start[i])
      return Error{where + "steps: row " + std::to_string(i) +
                   " is not a span inside [-2^62, 2^62) ns with busy and communication times inside it"};
    s.steps.push_back({names[i], start[i], end[i], busy[i], comm[i]});
  }
  return ok_status();
}

Status read_window(Fields& rank, RankSummary& s, const std::string& where) {
  Fields f(rank.child("window"), where + "window.");
  if (!rank.error().empty()) return Error{rank.error()};
  RankWindow& w = s.window;
  w.start_ns = f.integer("start_ns");
  w.end_ns = f.integer("end_ns");
  w.measurements = f.texts("measurements");
  if (f.has("last_measurement_end_ns")) w.last_measurement_end_ns = f.integer("last_measurement_end_ns");
  w.longest_own_work_ns = f.integer("longest_own_work_ns");
  w.longest_own_work_device = f.integer("longest_own_work_device");
  w.longest_own_work_tid = f.integer("longest_own_work_tid");
  if (f.has("gpu_work_ns")) w.gpu_work_ns = f.integer("gpu_work_ns");
  if (!f.error().empty()) return Error{f.error()};
  const bool measured = w.last_measurement_end_ns != std::numeric_limits<TimeNs>::min();
  if (w.end_ns < w.start_ns || w.start_ns < kMinTraceTimeNs || w.end_ns > kMaxTraceTimeNs ||
      (measured && (w.last_measurement_end_ns < kMinTraceTimeNs || w.last_measurement_end_ns > w.end_ns)) ||
      w.longest_own_work_ns < 0 || w.longest_own_work_ns > w.end_ns - w.start_ns || w.gpu_work_ns < 0 ||
      w.gpu_work_ns > w.end_ns - w.start_ns)
    return Error{where +
                 "window: not a span inside [-2^62, 2^62) ns with the measurement's end, the own work and the GPU "
                 "work inside it"};
  return ok_status();
}

void read_merged(Fields& rank, RankSummary& s, const std::string& where) {
  Fields m(rank.child("merged"), where + "merged.");
  s.from_merged_run = true;
  s.merged_rank.rank = s.distributed.rank;
  s.merged_rank.source = m.text("source");
  s.merged_rank.pids = m.integers("pids");
  s.merged_rank.devices = m.integers("devices");
  s.merged_rank.local_devices = m.integers("local_devices");
  s.merged_rank.shift_ns = m.integer("shift_ns");
  s.merged_rank.clock_offset_ns = m.integer("clock_offset_ns");
  s.merged_clock.method = m.text("clock_method");
  s.merged_clock.basis = m.text("clock_basis");
  s.merged_clock.residual_ns = m.integer("clock_residual_ns");
  s.merged_clock.collectives_checked = m.integer("clock_collectives_checked");
  rank.set_error(m.error());
}

Expected<RankSummary> read_rank(object o, const std::string& where) {
  Fields f(o, where);
  RankSummary s;
  s.source = f.text("source");
  s.source_tool = f.text("source_tool");
  s.distributed.rank = f.integer("rank");
  s.distributed.world_size = f.integer("world_size");
  s.distributed.backend = f.text("backend");
  s.origin_unix_ns = f.integer("origin_unix_ns");
  s.start_ns = f.integer("start_ns");
  s.end_ns = f.integer("end_ns");
  s.devices = f.integers("devices");
  if (f.has("merged")) read_merged(f, s, where);
  if (!f.error().empty()) return Error{f.error()};
  if (s.end_ns < s.start_ns || s.start_ns < kMinTraceTimeNs || s.end_ns > kMaxTraceTimeNs)
    return Error{where + "start_ns and end_ns: not a span inside [-2^62, 2^62) ns"};
  // Differences of two origins, and of two times moved by them, must fit in 64 bits.
  if (s.origin_unix_ns < kMinTraceTimeNs || s.origin_unix_ns > kMaxTraceTimeNs)
    return Error{where + "origin_unix_ns: outside [-2^62, 2^62) ns"};
  if (Status st = read_collectives(f, s, where); !st) return st.error();
  if (Status st = read_steps(f, s, where); !st) return st.error();
  if (Status st = read_window(f, s, where); !st) return st.error();
  // Every time of a trace lies in its span (Trace::start_ns, end_ns), so that moving the span onto the run's clock
  // (checked by reduce) moves every time inside the accepted range too.
  for (std::size_t i = 0; i < s.collectives.size(); ++i)
    if (s.collectives[i].start_ns < s.start_ns || s.collectives[i].end_ns > s.end_ns)
      return Error{where + "collectives: row " + std::to_string(i) +
                   " lies outside the rank's span (start_ns, end_ns)"};
  for (std::size_t i = 0; i < s.steps.size(); ++i)
    if (s.steps[i].start_ns < s.start_ns || s.steps[i].end_ns > s.end_ns)
      return Error{where + "steps: row " + std::to_string(i) + " lies outside the rank's span (start_ns, end_ns)"};
  return s;
}

}  // namespace

Expected<std::vector<RankSummary>> read_summary_bytes(std::string_view bytes, const std::string& name) {
  Expected<std::string> text = gunzip(bytes, name);
  if (!text) return text.error();
  simdjson::dom::parser parser;
  element doc;
  if (const auto err = parser.parse(*text).get(doc); err != simdjson::SUCCESS)
    return Error{name + ": not a gtv rank summary (its JSON does not parse: " + simdjson::error_message(err) + ")"};
  object top;
  std::string_view format;
  if (doc.get_object().get(top) != simdjson::SUCCESS || top["format"].get_string().get(format) != simdjson::SUCCESS ||
      format != "gtvsum")
    return Error{name + ": not a gtv rank summary (no \"format\": \"gtvsum\")"};
  std::int64_t version = 0;
  if (top["version"].get_int64().get(version) != simdjson::SUCCESS)
    return Error{name + ": a rank summary without a version number"};
  if (version != kSummaryVersion)
    return Error{name + ": rank summary version " + std::to_string(version) + "; this gtv reads version " +
                 std::to_string(kSummaryVersion) + " (summarize the trace again with this gtv)"};
  array ranks;
  if (top["ranks"].get_array().get(ranks) != simdjson::SUCCESS)
    return Error{name + ": a rank summary without its \"ranks\" array"};
  std::vector<RankSummary> out;
  std::size_t i = 0;
  for (element e : ranks) {
    object o;
    const std::string where = name + ": ranks[" + std::to_string(i++) + "].";
    if (e.get_object().get(o) != simdjson::SUCCESS) return Error{where + " is not an object"};
    Expected<RankSummary> s = read_rank(o, where);
    if (!s) return s.error();
    out.push_back(std::move(s).value());
  }
  if (out.empty()) return Error{name + ": a rank summary that holds no rank"};
  return out;
}

Expected<std::vector<RankSummary>> read_summary_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error{path + ": is a directory, not a rank summary"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path + ": cannot open"};
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Error{path + ": cannot read"};
  Expected<std::vector<RankSummary>> out = read_summary_bytes(bytes, path);
  if (out)
    for (RankSummary& s : *out) s.file = path;
  return out;
}

}  // namespace gtv::ranks
