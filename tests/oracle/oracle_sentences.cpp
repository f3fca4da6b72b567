// The numbers inside the report's sentences: every sentence gtv prints is a claim, so a duration or share printed
// in a verdict must be the oracle's number for the window the sentence names, to the printed precision. Only
// sentences whose wording is recognized are read; the rest are left to the golden reports.
#include <algorithm>
#include <cmath>
#include <regex>

#include "oracle_checks.h"

namespace gtv::oracle {
namespace {

using simdjson::dom::element;

// A printed number and how far the truth may lie from it: half of its last printed digit.
struct Printed {
  double value = 0;
  double tolerance = 0;
};

Printed printed_number(const std::string& text, double scale) {
  const std::size_t dot = text.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 1);
  return {std::stod(text) * scale, 0.5 * std::pow(10.0, -decimals) * scale * (1 + 1e-9)};
}

// "143.0 ms", "1.03 s", "72.0 us", "812 ns" as nanoseconds.
Printed printed_duration(const std::string& number, const std::string& unit) {
  const double scale = unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit == "us" ? 1e3 : 1.0;
  return printed_number(number, scale);
}

constexpr const char* kDuration = R"(([0-9]+(?:\.[0-9]+)?) (s|ms|us|ns))";
constexpr const char* kPercent = R"(([0-9]+(?:\.[0-9]+)?)%)";

class SentenceChecker {
 public:
  SentenceChecker(Checker& c, std::string where, std::string sentence)
      : c_(c), where_(std::move(where)), sentence_(std::move(sentence)) {}

  // Searches the sentence for `pattern` (kDuration / kPercent / ([0-9.]+) groups); on a match, calls fn with the
  // groups.
  template <typename Fn>
  void on(const std::string& pattern, Fn&& fn) {
    std::smatch m;
    if (std::regex_search(sentence_, m, std::regex(pattern))) fn(m);
  }

  void duration(const std::string& what, const std::string& number, const std::string& unit, TimeNs oracle) {
    const Printed p = printed_duration(number, unit);
    c_.same_value(where_ + " (" + what + " in \"" + sentence_ + "\")", p.value, double(oracle), p.tolerance);
  }
  void share(const std::string& what, const std::string& number, double oracle_ratio) {
    const Printed p = printed_number(number, 0.01);
    c_.same_value(where_ + " (" + what + " in \"" + sentence_ + "\")", p.value, oracle_ratio, p.tolerance);
  }
  void ratio(const std::string& what, const std::string& number, double oracle) {
    const Printed p = printed_number(number, 1.0);
    c_.same_value(where_ + " (" + what + " in \"" + sentence_ + "\")", p.value, oracle, p.tolerance);
  }
  void fact(bool holds, const std::string& what) { c_.expect(holds, where_ + ": \"" + sentence_ + "\": " + what); }

 private:
  Checker& c_;
  std::string where_;
  std::string sentence_;
};

std::string text_of(element obj, std::string_view key) {
  std::string_view s;
  return obj.at_key(key).get_string().get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}

double share_of(TimeNs part, TimeNs whole) { return whole == 0 ? 0.0 : double(part) / double(whole); }

// A concurrency verdict over a window of `window_ns`.
void concurrency_sentence(Checker& c, const std::string& where, const std::string& verdict, const ConcurrencyNumbers& n,
                          TimeNs window_ns) {
  SentenceChecker s(c, where, verdict);
  const std::string d = kDuration;
  const std::string p = kPercent;
  s.on("busy " + d + " of " + d + R"( \()" + p + R"(\))", [&](const std::smatch& m) {
    s.duration("busy time", m[1], m[2], n.any_busy_ns);
    s.duration("window", m[3], m[4], window_ns);
    s.share("busy share", m[5], share_of(n.any_busy_ns, window_ns));
  });
  s.on("overlapped for " + d + " of " + d + R"( \()" + p + R"(\))", [&](const std::smatch& m) {
    s.duration("2+ GPUs busy", m[1], m[2], n.overlap_ns);
    s.duration("1+ GPUs busy", m[3], m[4], n.any_busy_ns);
    s.share("overlap share", m[5], n.overlap_share);
  });
  s.on(R"(effective parallelism ([0-9]+\.[0-9]+) of ([0-9]+) possible)", [&](const std::smatch& m) {
    s.ratio("effective parallelism", m[1], n.effective_parallelism);
    s.fact(std::stoul(m[2]) == n.gpu_count, "the oracle finds " + std::to_string(n.gpu_count) + " GPUs busy");
  });
  s.on(R"(ideal \(busiest GPU, .*, alone\) )" + d,
       [&](const std::smatch& m) { s.duration("busiest GPU's busy time", m[1], m[2], n.ideal_ns); });
  s.on("GPUs were busy for " + d, [&](const std::smatch& m) { s.duration("busy time", m[1], m[2], n.any_busy_ns); });
  s.on("never ran at the same time", [&](const std::smatch&) {
    s.fact(n.overlap_ns == 0, "the oracle finds " + std::to_string(n.overlap_ns) + " ns with 2+ GPUs busy");
  });
}

void measurement_sentence(Checker& c, const std::string& where, const std::string& verdict,
                          const MeasurementNumbers& m) {
  SentenceChecker s(c, where, verdict);
  const std::string d = kDuration;
  s.on(R"(" reported )" + d, [&](const std::smatch& g) { s.duration("reported", g[1], g[2], m.reported_ns); });
  s.on("the work took " + d, [&](const std::smatch& g) { s.duration("truth", g[1], g[2], m.truth_ns); });
  s.on("it (missed|over-counted) " + d + R"( \()" + kPercent + R"(\))", [&](const std::smatch& g) {
    s.fact((g[1] == "missed") == (m.error_ns < 0), "the oracle's error is " + std::to_string(m.error_ns) + " ns");
    s.duration("error", g[2], g[3], m.error_ns < 0 ? -m.error_ns : m.error_ns);
    s.share("relative error", g[4], std::fabs(m.relative_error));
  });
  s.on("no GPU work ran in its scope, so the truth is its host interval, " + d, [&](const std::smatch& g) {
    s.fact(m.gpu_activity_count == 0, "the oracle finds " + std::to_string(m.gpu_activity_count) + " GPU items");
    s.duration("host interval", g[1], g[2], m.host_end_ns - m.host_start_ns);
  });
}

void communication_sentence(Checker& c, const std::string& where, const std::string& line,
                            const CommunicationNumbers& n) {
  SentenceChecker s(c, where, line);
  const std::string d = kDuration;
  s.on(R"(communication kernels \(([0-9,]+)\) ran )" + d + ", " + d + R"( of it \()" + kPercent + R"(\).*; )" + d +
           " exposed",
       [&](const std::smatch& g) {
         std::string count = g[1];
         count.erase(std::remove(count.begin(), count.end(), ','), count.end());
         s.fact(std::stoul(count) == n.communication_kernels,
                "the oracle counts " + std::to_string(n.communication_kernels) + " NCCL kernels");
         s.duration("communication time", g[2], g[3], n.communication_ns);
         s.duration("overlap", g[4], g[5], n.overlap_ns);
         s.share("overlap ratio", g[6], n.overlap_ratio);
         s.duration("exposed", g[7], g[8], n.exposed_ns);
       });
  s.on("Computation kernels ran " + d,
       [&](const std::smatch& g) { s.duration("computation time", g[1], g[2], n.computation_ns); });
  s.on("copies and sets " + d, [&](const std::smatch& g) { s.duration("copy and set time", g[1], g[2], n.memory_ns); });
}

// One GPU's idle line: "GPU 0 was idle for 2.19 ms of 129.5 ms in the timed loop (1.7%): ...".
void idle_sentence(Checker& c, const std::string& where, const std::string& line, TimeNs idle_ns, TimeNs region_ns) {
  SentenceChecker s(c, where, line);
  const std::string d = kDuration;
  s.on("was idle for " + d + " of " + d + R"( in [^(]*\()" + kPercent + R"(\))", [&](const std::smatch& g) {
    s.duration("idle time", g[1], g[2], idle_ns);
    s.duration("region", g[3], g[4], region_ns);
    s.share("idle share", g[5], share_of(idle_ns, region_ns));
  });
}

}  // namespace

void check_sentences(Checker& c, const Oracle& o, element report) {
  const Numbers& n = o.numbers();
  element concurrency;
  if (report.at_key("concurrency").get(concurrency) == simdjson::SUCCESS) {
    concurrency_sentence(c, "concurrency.verdict", text_of(concurrency, "verdict"), n.whole,
                         n.trace_end_ns - n.trace_start_ns);
    element region;
    if (concurrency.at_key("region").get(region) == simdjson::SUCCESS)
      concurrency_sentence(c, "concurrency.region.verdict", text_of(region, "verdict"), n.region, n.region_ns());
  }
  simdjson::dom::array measurements;
  if (report.at_pointer("/timing/measurements").get_array().get(measurements) == simdjson::SUCCESS) {
    std::size_t i = 0;
    for (element m : measurements) {
      if (i < n.measurements.size())
        measurement_sentence(c, "timing.measurements[" + std::to_string(i) + "].verdict", text_of(m, "verdict"),
                             n.measurements[i]);
      ++i;
    }
  }
  // The idle lines, one per entry of idle.gpus and in its order.
  simdjson::dom::array idle_gpus;
  simdjson::dom::array idle_lines;
  if (report.at_pointer("/idle/gpus").get_array().get(idle_gpus) == simdjson::SUCCESS &&
      report.at_pointer("/idle/lines").get_array().get(idle_lines) == simdjson::SUCCESS &&
      idle_gpus.size() == idle_lines.size()) {
    std::size_t i = 0;
    for (element gpu : idle_gpus) {
      std::int64_t device = 0;
      std::string_view text;
      const bool ok = gpu.at_key("device").get_int64().get(device) == simdjson::SUCCESS &&
                      idle_lines.at(i).get_string().get(text) == simdjson::SUCCESS;
      for (const GpuNumbers& g : n.gpus)
        if (ok && g.device == device)
          idle_sentence(c, "idle.lines[" + std::to_string(i) + "]", std::string(text), n.region_ns() - g.region_busy_ns,
                        n.region_ns());
      ++i;
    }
  }
  simdjson::dom::array lines;
  if (report.at_pointer("/communication/lines").get_array().get(lines) == simdjson::SUCCESS) {
    std::size_t i = 0;
    for (element line : lines) {
      std::string_view text;
      if (i < n.communication.size() && line.get_string().get(text) == simdjson::SUCCESS)
        communication_sentence(c, "communication.lines[" + std::to_string(i) + "]", std::string(text),
                               n.communication[i]);
      ++i;
    }
  }
}

}  // namespace gtv::oracle
