#pragma once
// The other side of the comparison: `gtv-cli analyze --format json FILE` run as a program and its output parsed,
// and the comparison itself: each number of the report set beside the oracle's, a difference over 0.1% a failure
// that names the file, the number and both values.
#include <simdjson.h>

#include <memory>
#include <string>
#include <string_view>

#include "gtv/base/time.h"

namespace gtv::oracle {

class AnalyzeJson {
 public:
  // Runs the CLI; on failure error() says why (exit status, the CLI's message, a parse error).
  AnalyzeJson(const std::string& cli_path, const std::string& trace_path);
  // A report given as text (tests of the comparison itself).
  [[nodiscard]] static AnalyzeJson from_text(const std::string& json);
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] simdjson::dom::element root() const { return root_; }

 private:
  AnalyzeJson() : parser_(std::make_unique<simdjson::dom::parser>()) {}
  void parse(const std::string& json);

  std::unique_ptr<simdjson::dom::parser> parser_;
  simdjson::padded_string text_;
  simdjson::dom::element root_;
  std::string error_;
};

// Compares numbers of one file and records a GoogleTest failure for each disagreement.
class Checker {
 public:
  explicit Checker(std::string file) : file_(std::move(file)) {}

  // `what` names the number as a path into the JSON ("busy.gpus[device 0].busy_ns"); obj[key] is analyze's value.
  void same_ns(const std::string& what, simdjson::dom::element obj, std::string_view key, TimeNs oracle);
  void same_count(const std::string& what, simdjson::dom::element obj, std::string_view key, std::uint64_t oracle);
  // Ratios are written with 4 decimals: half of the last digit is allowed beside the 0.1%.
  void same_ratio(const std::string& what, simdjson::dom::element obj, std::string_view key, double oracle);
  void same_flag(const std::string& what, simdjson::dom::element obj, std::string_view key, bool oracle);
  // Two values at hand: an analyze value already read against the oracle's, or (`against` naming it) against
  // another of analyze's own values that it must agree with.
  void same_value(const std::string& what, double analyze, double oracle, double tolerance,
                  std::string_view against = "oracle");
  // A fact that must hold; the message says what was found.
  void expect(bool holds, const std::string& message);

  [[nodiscard]] std::int64_t int_of(const std::string& what, simdjson::dom::element obj, std::string_view key);
  [[nodiscard]] bool has(simdjson::dom::element obj, std::string_view key) const;
  [[nodiscard]] std::size_t compared() const { return compared_; }

 private:
  std::string file_;
  std::size_t compared_ = 0;
};

// 0.1% of the larger magnitude: the oracle's bound on any difference.
[[nodiscard]] double relative_tolerance(double a, double b);

}  // namespace gtv::oracle
