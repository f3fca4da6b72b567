#include "gtv/collect/capture_gate.h"

#include <algorithm>
#include <limits>

namespace gtv::collect {
namespace {
constexpr UnixNs kOpenEnd = std::numeric_limits<UnixNs>::max();
}  // namespace

CaptureGate CaptureGate::always_open() {
  CaptureGate gate;
  gate.open(std::numeric_limits<UnixNs>::min());
  return gate;
}

CaptureGate CaptureGate::window(UnixNs start_ns, UnixNs end_ns) {
  CaptureGate gate;
  gate.open(start_ns);
  if (end_ns > start_ns) gate.close(end_ns);
  return gate;
}

CaptureGate::CaptureGate(const CaptureGate& other) {
  std::lock_guard lock(other.mutex_);
  windows_ = other.windows_;
  open_ = other.open_;
}

void CaptureGate::open(UnixNs t_ns) {
  std::lock_guard lock(mutex_);
  if (open_) return;
  open_ = true;
  windows_.emplace_back(t_ns, kOpenEnd);
}

void CaptureGate::close(UnixNs t_ns) {
  std::lock_guard lock(mutex_);
  if (!open_) return;
  open_ = false;
  windows_.back().second = std::max(t_ns, windows_.back().first);
}

bool CaptureGate::contains(UnixNs t_ns) const {
  std::lock_guard lock(mutex_);
  // Windows are few (one per cudaProfilerStart or per range of the name): the last ones are the likely ones.
  return std::any_of(windows_.rbegin(), windows_.rend(),
                     [t_ns](const auto& w) { return t_ns >= w.first && (w.second == kOpenEnd || t_ns < w.second); });
}

std::size_t CaptureGate::window_count() const {
  std::lock_guard lock(mutex_);
  return windows_.size();
}

NvtxRangeWatch::Change NvtxRangeWatch::opened_one() { return ++open_ == 1 ? Change::Opened : Change::None; }

NvtxRangeWatch::Change NvtxRangeWatch::closed_one() {
  if (open_ == 0) return Change::None;
  return --open_ == 0 ? Change::Closed : Change::None;
}

NvtxRangeWatch::Change NvtxRangeWatch::push(std::int64_t tid, std::string_view message) {
  const bool match = message == name_;
  std::lock_guard lock(mutex_);
  stacks_[tid].push_back(match);
  return match ? opened_one() : Change::None;
}

NvtxRangeWatch::Change NvtxRangeWatch::pop(std::int64_t tid) {
  std::lock_guard lock(mutex_);
  auto it = stacks_.find(tid);
  if (it == stacks_.end() || it->second.empty()) return Change::None;  // pushed before recording began
  const bool match = it->second.back();
  it->second.pop_back();
  return match ? closed_one() : Change::None;
}

NvtxRangeWatch::Change NvtxRangeWatch::start(std::uint64_t range_id, std::string_view message) {
  if (message != name_) return Change::None;
  std::lock_guard lock(mutex_);
  return started_.insert(range_id).second ? opened_one() : Change::None;
}

NvtxRangeWatch::Change NvtxRangeWatch::end(std::uint64_t range_id) {
  std::lock_guard lock(mutex_);
  return started_.erase(range_id) > 0 ? closed_one() : Change::None;
}

}  // namespace gtv::collect
