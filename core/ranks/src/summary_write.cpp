#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <new>
#include <stdexcept>
#include <unordered_map>

#include "gtv/io/output_file.h"
#include "gtv/ranks/summary_file.h"

namespace gtv::ranks {
namespace {

// A small JSON writer: the summary is objects of numbers, strings and flat arrays.
class Json {
 public:
  void raw(std::string_view s) { out_ += s; }
  void str(std::string_view s) {
    out_ += '"';
    for (const char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += ch;
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out_ += buf;
      } else {
        out_ += ch;
      }
    }
    out_ += '"';
  }
  void key(std::string_view k) {
    comma();
    str(k);
    out_ += ':';
    first_ = true;  // the value follows without a comma
    after_key_ = true;
  }
  void num(std::int64_t v) {
    comma();
    out_ += std::to_string(v);
  }
  void text(std::string_view s) {
    comma();
    str(s);
  }
  void open(char c) {
    comma();
    out_ += c;
    first_ = true;
  }
  void close(char c) {
    out_ += c;
    first_ = false;
  }
  template <typename Range, typename F>
  void array(std::string_view k, const Range& items, F value) {
    key(k);
    open('[');
    for (const auto& item : items) value(item);
    close(']');
  }
  [[nodiscard]] std::string take() { return std::move(out_); }

 private:
  void comma() {
    if (after_key_) {
      after_key_ = false;
      first_ = false;
      return;
    }
    if (!first_) out_ += ',';
    first_ = false;
  }
  std::string out_;
  bool first_ = true;
  bool after_key_ = false;
};

// Kinds and groups repeat for every collective: each is written once, in a table, and referred to by index.
struct Interned {
  std::vector<std::string> table;
  std::unordered_map<std::string, std::int64_t> index;
  std::int64_t of(const std::string& value) {
    const auto [it, added] = index.try_emplace(value, static_cast<std::int64_t>(table.size()));
    if (added) table.push_back(value);
    return it->second;
  }
};

void write_collectives_object(Json& j, const std::vector<Collective>& list, const std::vector<TimeNs>& own_work_ns) {
  Interned kinds, groups;
  std::vector<std::int64_t> kind, group;
  for (const Collective& c : list) {
    kind.push_back(kinds.of(c.kind));
    group.push_back(groups.of(c.group));
  }
  const auto num = [&j](std::int64_t v) { j.num(v); };
  const auto column = [&](std::string_view name, auto field) {
    j.key(name);
    j.open('[');
    for (const Collective& c : list) j.num(field(c));
    j.close(']');
  };
  j.key("collectives");
  j.open('{');
  j.key("count");
  j.num(static_cast<std::int64_t>(list.size()));
  j.array("kinds", kinds.table, [&j](const std::string& s) { j.text(s); });
  j.array("groups", groups.table, [&j](const std::string& s) { j.text(s); });
  j.array("kind", kind, num);
  j.array("group", group, num);
  column("seq", [](const Collective& c) { return c.seq; });
  column("elements", [](const Collective& c) { return c.elements; });
  column("root", [](const Collective& c) { return c.root; });
  column("on_gpu", [](const Collective& c) { return std::int64_t{c.on_gpu ? 1 : 0}; });
  column("start_ns", [](const Collective& c) { return c.start_ns; });
  column("end_ns", [](const Collective& c) { return c.end_ns; });
  // 0 where the summary was made without it (by hand, in tests and benchmarks).
  j.key("own_work_ns");
  j.open('[');
  for (std::size_t i = 0; i < list.size(); ++i) j.num(i < own_work_ns.size() ? own_work_ns[i] : 0);
  j.close(']');
  j.close('}');
}

void write_steps(Json& j, const std::vector<StepWork>& steps) {
  const auto column = [&](std::string_view name, auto field) {
    j.key(name);
    j.open('[');
    for (const StepWork& s : steps) j.num(field(s));
    j.close(']');
  };
  j.key("steps");
  j.open('{');
  j.key("count");
  j.num(static_cast<std::int64_t>(steps.size()));
  j.array("name", steps, [&j](const StepWork& s) { j.text(s.name); });
  column("start_ns", [](const StepWork& s) { return s.start_ns; });
  column("end_ns", [](const StepWork& s) { return s.end_ns; });
  column("gpu_busy_ns", [](const StepWork& s) { return s.gpu_busy_ns; });
  column("communication_ns", [](const StepWork& s) { return s.communication_ns; });
  j.close('}');
}

void write_window(Json& j, const RankWindow& w) {
  j.key("window");
  j.open('{');
  j.key("start_ns");
  j.num(w.start_ns);
  j.key("end_ns");
  j.num(w.end_ns);
  j.array("measurements", w.measurements, [&j](const std::string& s) { j.text(s); });
  if (w.last_measurement_end_ns != std::numeric_limits<TimeNs>::min()) {
    j.key("last_measurement_end_ns");
    j.num(w.last_measurement_end_ns);
  }
  j.key("longest_own_work_ns");
  j.num(w.longest_own_work_ns);
  j.key("longest_own_work_device");
  j.num(w.longest_own_work_device);
  j.key("longest_own_work_tid");
  j.num(w.longest_own_work_tid);
  j.key("gpu_work_ns");
  j.num(w.gpu_work_ns);
  j.close('}');
}

void write_rank(Json& j, const RankSummary& s) {
  const auto num = [&j](std::int64_t v) { j.num(v); };
  j.open('{');
  j.key("source");
  j.text(s.source);
  j.key("source_tool");
  j.text(s.source_tool);
  j.key("rank");
  j.num(s.distributed.rank);
  j.key("world_size");
  j.num(s.distributed.world_size);
  j.key("backend");
  j.text(s.distributed.backend);
  j.key("origin_unix_ns");
  j.num(s.origin_unix_ns);
  j.key("start_ns");
  j.num(s.start_ns);
  j.key("end_ns");
  j.num(s.end_ns);
  j.array("devices", s.devices, num);
  if (s.from_merged_run) {
    const RankInfo& r = s.merged_rank;
    j.key("merged");
    j.open('{');
    j.key("source");
    j.text(r.source);
    j.array("pids", r.pids, num);
    j.array("devices", r.devices, num);
    j.array("local_devices", r.local_devices, num);
    j.key("shift_ns");
    j.num(r.shift_ns);
    j.key("clock_offset_ns");
    j.num(r.clock_offset_ns);
    j.key("clock_method");
    j.text(s.merged_clock.method);
    j.key("clock_basis");
    j.text(s.merged_clock.basis);
    j.key("clock_residual_ns");
    j.num(s.merged_clock.residual_ns);
    j.key("clock_collectives_checked");
    j.num(s.merged_clock.collectives_checked);
    j.close('}');
  }
  write_collectives_object(j, s.collectives, s.collective_own_work_ns);
  write_steps(j, s.steps);
  write_window(j, s.window);
  j.close('}');
}

std::string gzip(std::string_view text) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer, so `gunzip` and Python's gzip module read the file. Only a lack of
  // memory makes it fail, which the containers around it report the same way.
  if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) throw std::bad_alloc();
  std::string out;
  char buffer[1 << 16];
  // In pieces that fit zlib's 32-bit counts, whatever the size of the text.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  std::size_t offset = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    const std::size_t piece = std::min(kPiece, text.size() - offset);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + offset));
    z.avail_in = static_cast<uInt>(piece);
    offset += piece;
    const int flush = offset == text.size() ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof buffer;
      rc = deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) {
        deflateEnd(&z);
        throw std::logic_error("zlib: inconsistent deflate state");
      }
      out.append(buffer, sizeof buffer - z.avail_out);
    } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  }
  deflateEnd(&z);
  return out;
}

}  // namespace

std::string summary_json(std::span<const RankSummary> summaries) {
  Json j;
  j.open('{');
  j.key("format");
  j.text("gtvsum");
  j.key("version");
  j.num(kSummaryVersion);
  j.key("ranks");
  j.open('[');
  for (const RankSummary& s : summaries) write_rank(j, s);
  j.close(']');
  j.close('}');
  std::string out = j.take();
  out += '\n';
  return out;
}

std::string summary_file_bytes(std::span<const RankSummary> summaries) { return gzip(summary_json(summaries)); }

Status write_summary_file(std::span<const RankSummary> summaries, const std::string& path) {
  return io::write_output_file(path, summary_file_bytes(summaries));
}

}  // namespace gtv::ranks
