// The warm-up analysis in words: one line per cause, one per compared loop, and a headline for the verdict.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "gtv/analysis/format.h"
#include "gtv/model/counter_names.h"
#include "gtv/model/ranks.h"
#include "warmup/warmup_parts.h"

namespace gtv::analysis::detail {
namespace {

// A first iteration this much slower than the steady ones is warm-up worth a verdict line; below 1.1x the
// difference is within iteration-to-iteration variation.
constexpr double kSlowIterationRatio = 1.5;
constexpr double kSlightlySlowerRatio = 1.1;
// Slow first kernel runs reach the headline next to host costs only from this much excess.
constexpr TimeNs kHeadlineKernelExcessNs = 1 * kNsPerMs;

std::string plural(std::size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string capitalized(std::string_view text) {
  std::string out(text);
  if (!out.empty() && out.rfind("cu", 0) != 0)
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

// "GPU 0", "GPUs 0 and 1", "GPU 1, partly on no known GPU" (calls with no launch after them on their thread); in
// a merged run "rank 0 · GPU 0 and rank 1 · GPU 0".
std::string devices_phrase(const TraceMetadata& meta, const std::vector<std::int64_t>& devices) {
  std::vector<std::int64_t> known;
  for (std::int64_t d : devices)
    if (d >= 0) known.push_back(d);
  const bool unknown = known.size() < devices.size();
  if (known.empty()) return "";
  const bool ranks = !meta.ranks.empty();
  std::string out = ranks ? "" : known.size() == 1 ? "GPU " : "GPUs ";
  for (std::size_t i = 0; i < known.size(); ++i) {
    if (i > 0) out += i + 1 == known.size() ? " and " : ", ";
    out += ranks ? gpu_label(meta, known[i]) : std::to_string(known[i]);
  }
  return unknown ? out + ", partly on no known GPU" : out;
}

std::string cause_line(const TraceMetadata& meta, const WarmUpCauseTotal& c) {
  const std::string devices = devices_phrase(meta, c.devices);
  const std::string where = devices.empty() ? "" : " (" + devices + ")";
  if (c.cause == WarmUpCause::SlowFirstKernel)
    return "Slow first kernel runs: " + plural(c.count, "kernel") + " ran at least 1.5x longer the first time than " +
           "the median of their later runs with the same grid and block, " + format_duration(c.cost_ns) +
           " more in all" + where + ".";
  const std::string what =
      c.cause == WarmUpCause::ModuleLoading ? plural(c.count, "call") + " or loading records" : plural(c.count, "call");
  return capitalized(to_string(c.cause)) + ": " + what + " in " + plural(c.finding_count, "group") + ", " +
         format_duration(c.cost_ns) + " on the host" + where + ".";
}

std::string who(const IterationWarmUp& it, bool several_processes) {
  const std::string rank = it.rank >= 0 ? "Rank " + std::to_string(it.rank) + " process " : "Process ";
  return several_processes ? rank + std::to_string(it.pid) + " thread " + std::to_string(it.tid)
                           : "Thread " + std::to_string(it.tid);
}

// "against a median of 4.41 ms for the 9 later ones", "against 4.41 ms for the later one"
std::string against(TimeNs steady_ns, std::size_t steady_count) {
  if (steady_count == 1) return "against " + format_duration(steady_ns) + " for the later one";
  return "against a median of " + format_duration(steady_ns) + " for the " + std::to_string(steady_count) +
         " later ones";
}

std::string gpu_clause(const IterationWarmUp& it) {
  if (it.first_gpu_ns == 0) return "the first one launched no GPU work";
  if (it.steady_gpu_median_ns == 0)
    return "the first one's GPU work took " + format_duration(it.first_gpu_ns) + "; the later ones launched hardly any";
  return "the first one's GPU work took " + format_duration(it.first_gpu_ns) + " " +
         against(it.steady_gpu_median_ns, it.steady_count) + " (" + fixed(it.gpu_ratio, 2) + "x)";
}

std::string wall_clause(const IterationWarmUp& it) {
  if (it.sync_ratio > 0)
    return "in wall time (each iteration ends after its GPU work) the first took " + format_duration(it.first_host_ns) +
           " " + against(it.steady_host_median_ns, it.steady_count) + " (" + fixed(it.sync_ratio, 2) + "x)";
  if (!it.synchronized) return "wall time is not compared: the iterations end before their GPU work does";
  if (it.communication) return "wall time is not compared: it includes waits for other ranks (NCCL)";
  return "wall time is not compared";
}

enum class IterationVerdict { Unknown, NoWarmUp, SlightlySlower, SlowerUnexplained, FirstUseWarmUp, GpuWarmUp };

// Wall time also holds host noise (a profiler starting, Python), so a slower first iteration is called warm-up
// on that basis only when first-use work was found inside it.
// First-use work that took a tenth or more of the first iteration's host time was paid by it, whether or not the
// loop waits for its GPU work (the host paid it either way).
IterationVerdict verdict_of(const IterationWarmUp& it) {
  if (it.gpu_ratio >= kSlowIterationRatio) return IterationVerdict::GpuWarmUp;
  if (it.first_use_ns > 0 && (it.sync_ratio >= kSlowIterationRatio || 10 * it.first_use_ns >= it.first_host_ns))
    return IterationVerdict::FirstUseWarmUp;
  if (it.sync_ratio >= kSlowIterationRatio) return IterationVerdict::SlowerUnexplained;
  const double r = std::max(it.gpu_ratio, it.sync_ratio);
  if (r == 0) return IterationVerdict::Unknown;
  return r >= kSlightlySlowerRatio ? IterationVerdict::SlightlySlower : IterationVerdict::NoWarmUp;
}

// The steps a profiler schedule let run before the first recorded one: N for "ProfilerStep#N" (its steps count
// from 0), else 0.
std::size_t unrecorded_steps(const IterationWarmUp& it) {
  constexpr std::string_view kStep = "ProfilerStep#";
  if (it.first_name.rfind(kStep, 0) != 0) return 0;
  std::size_t n = 0;
  for (std::size_t i = kStep.size(); i < it.first_name.size(); ++i) {
    const char ch = it.first_name[i];
    if (ch < '0' || ch > '9') return 0;
    n = n * 10 + std::size_t(ch - '0');
  }
  return n;
}

std::string verdict_text(const IterationWarmUp& it) {
  const std::size_t skipped = unrecorded_steps(it);
  if (skipped > 0 && verdict_of(it) == IterationVerdict::SlowerUnexplained)
    return "no warm-up in the recorded steps: the recording starts at " + it.first_name +
           ", after the profiler's schedule ran " + plural(skipped, "step") +
           " unrecorded, and no first-use work was found in it, though it was slower";
  switch (verdict_of(it)) {
    case IterationVerdict::GpuWarmUp:
      return "the first iteration's GPU work paid warm-up";
    case IterationVerdict::FirstUseWarmUp:
      return "the first iteration paid warm-up: first-use work took " + format_duration(it.first_use_ns) + " of its " +
             format_duration(it.first_host_ns) + " on the host";
    case IterationVerdict::SlowerUnexplained:
      return "the first iteration was slower, but no first-use work was found in it";
    case IterationVerdict::SlightlySlower:
      return "the first iteration was slightly slower";
    case IterationVerdict::NoWarmUp:
      return "the first iteration paid no warm-up";
    case IterationVerdict::Unknown:
      break;
  }
  return "";
}

std::string iteration_line(const IterationWarmUp& it, bool several_processes) {
  std::string head = who(it, several_processes) + ", " + it.series + ": ";
  if (it.whole_process) {
    // The steps are one thread's ranges; what they launched is the whole process's (the autograd engine's backward).
    std::string of = who(it, several_processes);
    of[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(of[0])));
    head = "Profiler steps (the ProfilerStep ranges of " + of +
           "), counting the GPU work any thread of its process launched inside them: ";
  }
  const std::string verdict = verdict_text(it);
  std::string body = gpu_clause(it) + "; " + wall_clause(it) + ".";
  if (verdict.empty()) return head + body;
  body[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(body[0])));
  return head + verdict + ". " + body;
}

bool several_processes(const WarmUp& w) {
  return std::any_of(w.iterations.begin(), w.iterations.end(),
                     [&](const IterationWarmUp& it) { return it.pid != w.iterations.front().pid; });
}

bool has_cuda_activity(const Trace& trace) {
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu() && !lane.events.empty()) return true;
    for (const Event& e : lane.events)
      if (e.kind == EventKind::Runtime || e.kind == EventKind::Driver) return true;
  }
  return false;
}

const char* const kNoWarmUp =
    "No warm-up in this recording: no first-use work (context creation, module loading, library set-up, allocator "
    "growth) was found; it may have been recorded after warm-up.";
const char* const kNoFirstUseCalls =
    "No first-use calls (context creation, module loading, library set-up, allocator growth) are in this recording; "
    "the memory counters below say what the GPUs' allocators took.";

// Bytes in decimal units, as the timeline's counter rows show them: "1.20 GB", "340.00 MB", "512 bytes".
std::string bytes_text(double bytes) {
  const double b = std::fabs(bytes);
  const std::string sign = bytes < 0 ? "-" : "";
  if (b >= 1e9) return sign + fixed(b / 1e9, 2) + " GB";
  if (b >= 1e6) return sign + fixed(b / 1e6, 2) + " MB";
  if (b >= 1e3) return sign + fixed(b / 1e3, 2) + " kB";
  return sign + fixed(b, 0) + " bytes";
}

// Growth a memory line or the headline mentions: at least one byte, so that a double's rounding says nothing.
bool grew(double bytes) { return bytes >= 1.0; }

std::string memory_subject(const TraceMetadata& meta, const MemoryGrowth& g) {
  const std::string gpu = gpu_label(meta, g.device);
  if (g.series == counters::kTorchReserved) return "PyTorch's reserved memory on " + gpu;
  if (g.series == counters::kDeviceMemorySinceStart) return "Device memory allocated on " + gpu + " (CUPTI's records)";
  return "\"" + g.series + "\" on " + gpu;
}

// Growth between timed measurements lies in their window but not in them: said apart, so neither hides the other.
std::string gaps_clause(const MemoryGrowth& g) {
  if (!g.has_gaps) return {};
  if (grew(g.gap_growth_bytes))
    return "; in the gaps between them, which were not timed, it grew by " + bytes_text(g.gap_growth_bytes);
  return "; in the gaps between them, which were not timed, it did not grow either";
}

// "PyTorch's reserved memory on GPU 0 grew by 1.20 GB before the timed loop, from 0 bytes at its first sample to
// 1.20 GB (340.00 MB of it inside warm-up ranges), and did not grow in the timed loop (counter "...")."
std::string memory_line(const TraceMetadata& meta, const MemoryGrowth& g) {
  const std::string counter = " (counter \"" + g.series + "\").";
  const std::string from = g.since_start ? "from 0 bytes at the recording's start"
                                         : "from " + bytes_text(g.start_bytes) + " at its first sample";
  const double reached = g.start_bytes + g.before_growth_bytes;
  std::string change;
  if (grew(g.before_growth_bytes))
    change = "grew by " + bytes_text(g.before_growth_bytes) + " ";
  else if (grew(-g.before_growth_bytes))
    change = "shrank by " + bytes_text(-g.before_growth_bytes) + " ";
  if (!g.has_steady) {
    if (change.empty())
      return memory_subject(meta, g) + " stayed at " + bytes_text(reached) + " over the trace" + counter;
    return memory_subject(meta, g) + " " + change + "over the trace, " + from + " to " + bytes_text(reached) +
           "; there is no timed loop or loop of iterations to compare it with" + counter;
  }
  std::string out = memory_subject(meta, g) + " ";
  if (change.empty()) {
    out += "stayed at " + bytes_text(reached) + " before " + g.steady_name;
  } else {
    out += change + "before " + g.steady_name + ", " + from + " to " + bytes_text(reached);
    if (g.has_warmup_ranges && !g.warmup_inside_steady && grew(g.before_growth_bytes)) {
      if (!grew(std::fabs(g.warmup_growth_bytes)))
        out += " (none of it inside warm-up ranges)";
      else if (g.warmup_growth_bytes > 0 && g.warmup_growth_bytes <= g.before_growth_bytes)
        out += " (" + bytes_text(g.warmup_growth_bytes) + " of it inside warm-up ranges)";
      else
        out += " (it changed by " + bytes_text(g.warmup_growth_bytes) + " inside warm-up ranges)";
    }
  }
  if (g.warmup_inside_steady) {
    // Cold calls measured inside the timed window (the warmup scenario): their warm-up ranges are told apart.
    out += "; inside warm-up ranges (before and during " + g.steady_name + ") it ";
    if (grew(g.warmup_growth_bytes))
      out += "grew by " + bytes_text(g.warmup_growth_bytes);
    else if (grew(-g.warmup_growth_bytes))
      out += "shrank by " + bytes_text(-g.warmup_growth_bytes);
    else
      out += "did not change";
    if (!grew(g.steady_growth_bytes))
      return out + "; in the rest of " + g.steady_name + " it did not grow" + gaps_clause(g) + counter;
    return out + "; in the rest of " + g.steady_name + " it grew by " + bytes_text(g.steady_growth_bytes) +
           ": the allocator was still growing" + gaps_clause(g) + counter;
  }
  if (!grew(g.steady_growth_bytes)) return out + ", and did not grow in " + g.steady_name + gaps_clause(g) + counter;
  return out + ", and grew by a further " + bytes_text(g.steady_growth_bytes) + " in " + g.steady_name + ", to " +
         bytes_text(reached + g.steady_growth_bytes) + " at its highest: the allocator was still growing" +
         gaps_clause(g) + counter;
}

// "the timed loop", "the timed measurements outside warm-up ranges": where steady growth was looked for.
std::string steady_phrase(const MemoryGrowth& g) {
  return g.warmup_inside_steady ? g.steady_name + " outside warm-up ranges" : g.steady_name;
}

bool memory_grew_before(const WarmUp& w) {
  return std::any_of(w.memory.begin(), w.memory.end(),
                     [](const MemoryGrowth& g) { return grew(g.before_growth_bytes); });
}

// The GPU whose memory grew most inside the steady part, when that growth is at least 1% of its peak (smaller
// changes are an iteration's own tensors coming and going); null when none did.
const MemoryGrowth* steady_memory_growth(const WarmUp& w) {
  const MemoryGrowth* most = nullptr;
  for (const MemoryGrowth& g : w.memory) {
    if (!g.has_steady || !grew(g.steady_growth_bytes) || g.steady_growth_bytes < 0.01 * g.peak_bytes) continue;
    if (!most || g.steady_growth_bytes > most->steady_growth_bytes) most = &g;
  }
  return most;
}

// "context creation 125.3 ms on GPU 0, module loading 98.2 ms on GPUs 0 and 1, and 2 smaller causes"
std::string host_causes_phrase(const TraceMetadata& meta, const WarmUp& w) {
  std::vector<std::string> parts;
  std::size_t host_causes = 0;
  for (const WarmUpCauseTotal& c : w.causes) {
    if (c.cause == WarmUpCause::SlowFirstKernel) continue;
    if (++host_causes > 3) continue;
    const std::string devices = devices_phrase(meta, c.devices);
    parts.push_back(std::string(to_string(c.cause)) + " " + format_duration(c.cost_ns) +
                    (devices.empty() ? "" : " on " + devices));
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  if (host_causes > 3) out += ", and " + plural(host_causes - 3, "smaller cause");
  return out;
}

const IterationWarmUp* slowest_first_iteration(const WarmUp& w) {
  const IterationWarmUp* worst = nullptr;
  auto ratio = [](const IterationWarmUp& it) { return std::max(it.gpu_ratio, it.sync_ratio); };
  for (const IterationWarmUp& it : w.iterations) {
    const IterationVerdict v = verdict_of(it);
    if (v != IterationVerdict::GpuWarmUp && v != IterationVerdict::FirstUseWarmUp) continue;
    if (!worst || ratio(it) > ratio(*worst)) worst = &it;
  }
  return worst;
}

std::string iteration_phrase(const IterationWarmUp& it, bool several) {
  const bool on_gpu = verdict_of(it) == IterationVerdict::GpuWarmUp;
  std::string who_text = who(it, several);
  who_text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(who_text[0])));
  if (!on_gpu && it.sync_ratio == 0)  // no like-for-like wall time: say what the host paid, and that the GPU did not
    return "the first iteration of " + who_text + " spent " + format_duration(it.first_use_ns) + " of its " +
           format_duration(it.first_host_ns) + " on the host in first-use work" +
           (it.gpu_ratio > 0 ? " (its GPU work: " + fixed(it.gpu_ratio, 2) + "x the later ones)" : std::string());
  std::string out = "the first iteration of " + who_text + " took " + fixed(on_gpu ? it.gpu_ratio : it.sync_ratio, 1) +
                    "x the median of the later ones in " + (on_gpu ? "GPU time (" : "synchronized time (") +
                    format_duration(on_gpu ? it.first_gpu_ns : it.first_host_ns) + " vs " +
                    format_duration(on_gpu ? it.steady_gpu_median_ns : it.steady_host_median_ns) + ")";
  if (!on_gpu) out += ", " + format_duration(it.first_use_ns) + " of it first-use work";
  return out;
}

}  // namespace

std::vector<std::string> warmup_lines(const Trace& trace, const WarmUp& w) {
  std::vector<std::string> out;
  if (w.findings.empty()) {
    if (memory_grew_before(w))
      out.emplace_back(kNoFirstUseCalls);
    else
      out.emplace_back(has_cuda_activity(trace)
                           ? kNoWarmUp
                           : "No CUDA calls or GPU work in this recording: no warm-up to look for.");
  }
  if (w.host_cost_ns > 0)
    out.push_back("First-use work cost the host " + format_duration(w.host_cost_ns) +
                  " in all (the causes below overlap where one call waited on another).");
  // The memory lines follow the allocator's calls, or the last cause when there are none.
  bool memory_said = false;
  for (const WarmUpCauseTotal& c : w.causes) {
    out.push_back(cause_line(trace.metadata(), c));
    if (c.cause != WarmUpCause::AllocatorGrowth) continue;
    for (const MemoryGrowth& g : w.memory) out.push_back(memory_line(trace.metadata(), g));
    memory_said = true;
  }
  if (!memory_said)
    for (const MemoryGrowth& g : w.memory) out.push_back(memory_line(trace.metadata(), g));
  const bool several = several_processes(w);
  for (const IterationWarmUp& it : w.iterations) out.push_back(iteration_line(it, several));
  return out;
}

std::string warmup_headline(const Trace& trace, const WarmUp& w) {
  std::vector<std::string> parts;
  if (w.host_cost_ns > 0)
    parts.push_back("first-use work cost the host " + format_duration(w.host_cost_ns) + " (" +
                    host_causes_phrase(trace.metadata(), w) + ")");
  for (const WarmUpCauseTotal& c : w.causes) {
    if (c.cause != WarmUpCause::SlowFirstKernel) continue;
    if (w.host_cost_ns > 0 && c.cost_ns < kHeadlineKernelExcessNs) continue;
    const std::string devices = devices_phrase(trace.metadata(), c.devices);
    parts.push_back("first runs of " + plural(c.count, "kernel") + (devices.empty() ? "" : " on " + devices) +
                    " took " + format_duration(c.cost_ns) + " more than their later runs with the same grid and block");
  }
  if (const IterationWarmUp* it = slowest_first_iteration(w))
    parts.push_back(iteration_phrase(*it, several_processes(w)));
  if (const MemoryGrowth* g = steady_memory_growth(w))
    parts.push_back(gpu_label(trace.metadata(), g->device) + "'s memory still grew by " +
                    bytes_text(g->steady_growth_bytes) + " in " + steady_phrase(*g) + " (counter \"" + g->series +
                    "\")");
  if (parts.empty()) return w.findings.empty() && has_cuda_activity(trace) && !memory_grew_before(w) ? kNoWarmUp : "";
  std::string out = "Warm-up: ";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out + ".";
}

}  // namespace gtv::analysis::detail
