#include "json/gtv_section.h"

#include <simdjson.h>

#include <cmath>
#include <limits>
#include <set>

#include "gtv/base/time.h"

namespace gtv::io {
namespace {

namespace dom = simdjson::dom;

std::int64_t int_or(dom::element e, std::int64_t fallback) {
  std::int64_t i = 0;
  if (e.get_int64().get(i) == simdjson::SUCCESS) return i;
  std::uint64_t u = 0;
  if (e.get_uint64().get(u) == simdjson::SUCCESS)
    return u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ? static_cast<std::int64_t>(u)
                                                                                     : fallback;
  double d = 0;
  if (e.get_double().get(d) == simdjson::SUCCESS && std::isfinite(d) && std::fabs(d) < 9.2e18) return std::llround(d);
  return fallback;
}

std::int64_t int_field(dom::object o, std::string_view key, std::int64_t fallback = 0) {
  dom::element e;
  if (o[key].get(e) != simdjson::SUCCESS) return fallback;
  return int_or(e, fallback);
}

// A range's device: -1 (none) when absent or outside the 32-bit device index.
std::int32_t device_field(dom::object o) {
  const std::int64_t id = int_field(o, "device", -1);
  return id >= 0 && id <= std::numeric_limits<std::int32_t>::max() ? static_cast<std::int32_t>(id) : -1;
}

std::string string_field(dom::object o, std::string_view key) {
  std::string_view s;
  if (o[key].get_string().get(s) != simdjson::SUCCESS) return {};
  return std::string(s);
}

void read_string_map(dom::object o, std::string_view key, std::map<std::string, std::string>& out) {
  dom::object m;
  if (o[key].get_object().get(m) != simdjson::SUCCESS) return;
  for (auto [k, v] : m) {
    std::string_view s;
    if (v.get_string().get(s) == simdjson::SUCCESS) out[std::string(k)] = std::string(s);
  }
}

std::vector<std::string> string_list(dom::object o, std::string_view key) {
  std::vector<std::string> out;
  dom::array a;
  if (o[key].get_array().get(a) != simdjson::SUCCESS) return out;
  for (dom::element e : a) {
    std::string_view s;
    if (e.get_string().get(s) == simdjson::SUCCESS) out.emplace_back(s);
  }
  return out;
}

std::vector<std::int64_t> int_list(dom::object o, std::string_view key) {
  std::vector<std::int64_t> out;
  dom::array a;
  if (o[key].get_array().get(a) != simdjson::SUCCESS) return out;
  for (dom::element e : a) out.push_back(int_or(e, 0));
  return out;
}

template <typename Fn>
void for_each_object(dom::object o, std::string_view key, Fn fn) {
  dom::array a;
  if (o[key].get_array().get(a) != simdjson::SUCCESS) return;
  for (dom::element e : a) {
    dom::object item;
    if (e.get_object().get(item) == simdjson::SUCCESS) fn(item);
  }
}

// The ranks of a merged run and how their clocks were aligned.
void read_ranks(dom::object o, TraceMetadata& m) {
  dom::object d;
  if (o["distributed"].get_object().get(d) == simdjson::SUCCESS)
    m.distributed = {int_field(d, "rank", -1), int_field(d, "world_size"), string_field(d, "backend")};
  for_each_object(o, "ranks", [&](dom::object r) {
    RankInfo info{int_field(r, "rank"),           string_field(r, "source"),    int_list(r, "pids"),
                  int_list(r, "devices"),         int_list(r, "local_devices"), int_field(r, "shift_ns"),
                  int_field(r, "clock_offset_ns")};
    if (info.local_devices.size() != info.devices.size()) info.local_devices = info.devices;
    m.ranks.push_back(std::move(info));
  });
  dom::object c;
  if (o["clock"].get_object().get(c) == simdjson::SUCCESS)
    m.clock = {string_field(c, "method"), string_field(c, "basis"), int_field(c, "residual_ns", -1),
               int_field(c, "collectives_checked")};
}

// A merged run's rank table, as info and analyze print it: distinct ranks inside the world, at most world size.
Status check_ranks(const TraceMetadata& m) {
  if (m.ranks.empty()) return ok_status();
  const std::int64_t world = m.distributed.world_size;
  const std::string where = "'gtv.metadata.ranks': ";
  if (world <= 0 || static_cast<std::uint64_t>(m.ranks.size()) > static_cast<std::uint64_t>(world))
    return Error{where + std::to_string(m.ranks.size()) + " ranks in a world of size " + std::to_string(world)};
  std::set<std::int64_t> seen;
  for (const RankInfo& r : m.ranks) {
    if (r.rank < 0 || r.rank >= world)
      return Error{where + "rank " + std::to_string(r.rank) + " is outside the world of size " + std::to_string(world)};
    if (!seen.insert(r.rank).second) return Error{where + "rank " + std::to_string(r.rank) + " is listed twice"};
    if (!in_trace_time_range(r.shift_ns) || !in_trace_time_range(r.clock_offset_ns))
      return Error{where + "rank " + std::to_string(r.rank) +
                   "'s shift lies outside the accepted time range [-2^62, 2^62) ns"};
  }
  return ok_status();
}

void read_metadata(dom::object o, TraceMetadata& m) {
  m.source_tool = string_field(o, "source_tool");
  m.scenario = string_field(o, "scenario");
  read_string_map(o, "config", m.config);
  read_string_map(o, "machine", m.machine);
  m.dropped_records = int_field(o, "dropped_records");
  m.notes = string_list(o, "notes");
  read_ranks(o, m);
  for_each_object(o, "recorder_cost", [&](dom::object c) {
    m.recorder_costs.push_back({int_field(c, "pid"), int_field(c, "startup_ns"), int_field(c, "buffer_handling_ns"),
                                int_field(c, "exit_ns"), int_field(c, "traced_ns"), int_field(c, "buffers"),
                                int_field(c, "records"), int_field(c, "records_kept")});
  });
}

void read_gtv(dom::object o, GtvSection& g) {
  g.format_version = static_cast<int>(int_field(o, "format_version"));
  g.writer = string_field(o, "writer");
  dom::object meta;
  if (o["metadata"].get_object().get(meta) == simdjson::SUCCESS) read_metadata(meta, g.metadata);
  g.has_lanes = o["lanes"].is_array();
  for_each_object(o, "lanes", [&](dom::object l) {
    const bool gpu = string_field(l, "kind") == "gpu";
    const LaneKey key{gpu ? LaneKind::GpuStream : LaneKind::HostThread, int_field(l, "pid"), int_field(l, "tid")};
    g.lanes.push_back({key, string_field(l, "name"), int_field(l, "sort_index")});
  });
  g.has_processes = o["processes"].is_array();
  for_each_object(o, "processes", [&](dom::object p) {
    g.processes.push_back(
        {int_field(p, "pid"), string_field(p, "name"), int_field(p, "sort_index"), string_list(p, "labels")});
  });
  for_each_object(o, "ranges", [&](dom::object r) {
    g.ranges.push_back({string_field(r, "name"), range_kind_from_string(string_field(r, "kind")),
                        int_field(r, "start_ns"), int_field(r, "end_ns"), int_field(r, "pid"), int_field(r, "tid"),
                        device_field(r)});
  });
  for_each_object(o, "measurements", [&](dom::object r) {
    g.measurements.push_back({string_field(r, "name"), measurement_method_from_string(string_field(r, "method")),
                              int_field(r, "reported_ns"), int_field(r, "host_start_ns"), int_field(r, "host_end_ns"),
                              int_field(r, "pid"), int_field(r, "tid")});
  });
}

void read_devices(dom::array a, std::vector<DeviceInfo>& out) {
  for (dom::element e : a) {
    dom::object d;
    if (e.get_object().get(d) != simdjson::SUCCESS) continue;
    // A device id that does not fit the model's 32-bit index names no device (cut to 32 bits it would name
    // another GPU).
    const std::int64_t id = int_field(d, "id", -1);
    if (id < 0 || id > std::numeric_limits<std::int32_t>::max()) continue;
    DeviceInfo info;
    info.index = static_cast<std::int32_t>(id);
    info.name = string_field(d, "name");
    info.total_memory_bytes = int_field(d, "totalGlobalMem");
    info.compute_major = static_cast<std::int32_t>(int_field(d, "computeMajor"));
    info.compute_minor = static_cast<std::int32_t>(int_field(d, "computeMinor"));
    info.sm_count = static_cast<std::int32_t>(int_field(d, "numSms"));
    out.push_back(std::move(info));
  }
}

}  // namespace

bool is_interesting_top_level_key(std::string_view key) {
  return key == "baseTimeNanoseconds" || key == "deviceProperties" || key == "gtv" || key == "schemaVersion" ||
         key == "trace_id" || key == "cupti_version" || key == "cuda_runtime_version" || key == "distributedInfo";
}

Status parse_top_level_value(std::string_view key, std::string_view json, FileHeader& header) {
  if (key != "baseTimeNanoseconds" && key != "deviceProperties" && key != "gtv" && key != "distributedInfo") {
    header.kineto_keys = header.kineto_keys || is_interesting_top_level_key(key);
    return ok_status();
  }
  dom::parser parser;
  dom::element root;
  const simdjson::padded_string padded(json);
  if (auto e = parser.parse(padded).get(root); e != simdjson::SUCCESS)
    return Error{"'" + std::string(key) + "': " + simdjson::error_message(e)};
  if (key == "baseTimeNanoseconds") {
    if (!root.is_number()) return Error{"'baseTimeNanoseconds' is not a number"};
    // Not read as 0 when it does not fit: a trace's origin is a time like any other, inside [-2^62, 2^62) ns.
    constexpr std::int64_t kOutside = std::numeric_limits<std::int64_t>::min();
    const std::int64_t base_ns = int_or(root, kOutside);
    if (base_ns == kOutside || !in_trace_time_range(base_ns))
      return Error{"'baseTimeNanoseconds' " + std::string(json.substr(0, 40)) +
                   " is outside the accepted time range [-2^62, 2^62) ns"};
    header.base_time_ns = base_ns;
    header.kineto_keys = true;
  } else if (key == "deviceProperties") {
    dom::array a;
    if (root.get_array().get(a) != simdjson::SUCCESS) return Error{"'deviceProperties' is not an array"};
    read_devices(a, header.devices);
    header.kineto_keys = true;
  } else if (key == "distributedInfo") {
    dom::object o;
    if (root.get_object().get(o) != simdjson::SUCCESS) return Error{"'distributedInfo' is not an object"};
    // A rank or world size that is present but not an integer is named as written, not read as "no rank".
    for (const std::string_view field : {std::string_view("rank"), std::string_view("world_size")}) {
      dom::element e;
      if (o[field].get(e) != simdjson::SUCCESS || e.is_number()) continue;
      std::string text = simdjson::minify(e);
      if (text.size() > 40) text = text.substr(0, 40) + "...";
      return Error{"'distributedInfo' says " + std::string(field) + " " + text +
                   ": ranks are integers from 0 to world size - 1"};
    }
    header.distributed.rank = int_field(o, "rank", -1);
    header.distributed.world_size = int_field(o, "world_size", 0);
    header.distributed.backend = string_field(o, "backend");
    if (header.distributed.rank < 0 && header.distributed.world_size <= 0) {
      header.distributed = DistributedInfo{};  // says nothing
    } else if (header.distributed.rank < 0 || header.distributed.world_size <= header.distributed.rank) {
      return Error{"'distributedInfo' says rank " + std::to_string(header.distributed.rank) + " of world size " +
                   std::to_string(header.distributed.world_size) + ": ranks are 0 to world size - 1"};
    }
    header.kineto_keys = true;
  } else {
    dom::object o;
    if (root.get_object().get(o) != simdjson::SUCCESS) return Error{"'gtv' is not an object"};
    header.gtv.emplace();
    read_gtv(o, *header.gtv);
    if (Status s = check_ranks(header.gtv->metadata); !s) return s;
  }
  return ok_status();
}

}  // namespace gtv::io
