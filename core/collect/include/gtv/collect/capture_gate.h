#pragma once
// The capture range of a recording as time windows. A CaptureGate is opened and closed as the program runs
// (cudaProfilerStart/Stop, the NVTX range that marks it) or set up front (--delay/--duration); a record is kept
// when its start lies in a window. Classifying by time, not by arrival, is exact although CUPTI delivers records
// late and out of order: a record of time t arrives after t, and by then every window edge before t is known.
// NvtxRangeWatch turns a program's NVTX calls into the edges of the ranges of one name.
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtv/collect/records.h"

namespace gtv::collect {

class CaptureGate {
 public:
  // Open from the beginning to the end: every record is inside.
  static CaptureGate always_open();
  // One window [start, end); end <= start: open to the end.
  static CaptureGate window(UnixNs start_ns, UnixNs end_ns);
  // Closed until open() is called.
  CaptureGate() = default;
  CaptureGate(const CaptureGate& other);
  CaptureGate& operator=(const CaptureGate&) = delete;
  ~CaptureGate() = default;

  // A window starts at t; ignored while one is open.
  void open(UnixNs t_ns);
  // The open window ends at t; ignored while none is open.
  void close(UnixNs t_ns);
  [[nodiscard]] bool contains(UnixNs t_ns) const;
  [[nodiscard]] std::size_t window_count() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<UnixNs, UnixNs>> windows_;  // [start, end), in order; the last may be open (end = max)
  bool open_ = false;
};

// Where NVTX ranges of one name begin and end among the NVTX calls of a program: push/pop ranges per thread (a
// pop ends the range its thread pushed last), start/end ranges by id. Nested and overlapping ranges of the name
// make one window, from the first start to the last end. Thread-safe.
class NvtxRangeWatch {
 public:
  enum class Change : std::uint8_t { None, Opened, Closed };
  explicit NvtxRangeWatch(std::string name) : name_(std::move(name)) {}

  Change push(std::int64_t tid, std::string_view message);
  Change pop(std::int64_t tid);
  Change start(std::uint64_t range_id, std::string_view message);
  Change end(std::uint64_t range_id);
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  Change opened_one();  // lock held
  Change closed_one();  // lock held
  std::string name_;
  std::mutex mutex_;
  std::map<std::int64_t, std::vector<bool>> stacks_;  // thread -> pushed ranges, true where the name matched
  std::set<std::uint64_t> started_;                   // start/end ranges of the name still open
  std::size_t open_ = 0;                              // ranges of the name open now
};

}  // namespace gtv::collect
