#include "analyze_json.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace gtv::oracle {
namespace {

std::string quoted(const std::string& path) {
  std::string out = "'";
  for (char c : path) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string number_text(double v) {
  std::ostringstream s;
  s.precision(12);
  s << v;
  return s.str();
}

}  // namespace

AnalyzeJson::AnalyzeJson(const std::string& cli_path, const std::string& trace_path)
    : parser_(std::make_unique<simdjson::dom::parser>()) {
  const std::string command = quoted(cli_path) + " analyze --format json " + quoted(trace_path) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    error_ = "cannot start " + cli_path;
    return;
  }
  std::string out;
  std::array<char, 1 << 16> buffer{};
  for (std::size_t n = 0; (n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) out.append(buffer.data(), n);
  const int status = pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    error_ = "gtv-cli analyze failed (status " + std::to_string(status) + "): " + out.substr(0, 500);
    return;
  }
  parse(out);
}

AnalyzeJson AnalyzeJson::from_text(const std::string& json) {
  AnalyzeJson out;
  out.parse(json);
  return out;
}

void AnalyzeJson::parse(const std::string& json) {
  text_ = simdjson::padded_string(json);
  if (const auto err = parser_->parse(text_).get(root_); err != simdjson::SUCCESS)
    error_ = std::string("gtv-cli analyze printed no JSON: ") + simdjson::error_message(err);
}

double relative_tolerance(double a, double b) { return 0.001 * std::max(std::fabs(a), std::fabs(b)); }

bool Checker::has(simdjson::dom::element obj, std::string_view key) const {
  simdjson::dom::element v;
  return obj.at_key(key).get(v) == simdjson::SUCCESS;
}

std::int64_t Checker::int_of(const std::string& what, simdjson::dom::element obj, std::string_view key) {
  std::int64_t v = 0;
  if (obj.at_key(key).get_int64().get(v) != simdjson::SUCCESS)
    ADD_FAILURE() << file_ << ": " << what << ": analyze --json has no integer \"" << key << "\"";
  return v;
}

void Checker::same_value(const std::string& what, double analyze, double oracle, double tolerance,
                         std::string_view against) {
  ++compared_;
  const double diff = std::fabs(analyze - oracle);
  if (diff <= tolerance) return;
  ADD_FAILURE() << file_ << ": " << what << ": analyze " << number_text(analyze) << ", " << against << " "
                << number_text(oracle) << " (difference " << number_text(diff) << ", "
                << number_text(oracle == 0 ? 100.0 : 100.0 * diff / std::fabs(oracle)) << "%)";
}

void Checker::same_ns(const std::string& what, simdjson::dom::element obj, std::string_view key, TimeNs oracle) {
  const std::int64_t analyze = int_of(what, obj, key);
  same_value(what, double(analyze), double(oracle), relative_tolerance(double(analyze), double(oracle)));
}

void Checker::same_count(const std::string& what, simdjson::dom::element obj, std::string_view key,
                         std::uint64_t oracle) {
  const std::int64_t analyze = int_of(what, obj, key);
  same_value(what, double(analyze), double(oracle), relative_tolerance(double(analyze), double(oracle)));
}

void Checker::same_ratio(const std::string& what, simdjson::dom::element obj, std::string_view key, double oracle) {
  double analyze = 0;
  if (obj.at_key(key).get_double().get(analyze) != simdjson::SUCCESS) {
    std::int64_t whole = 0;  // a ratio of exactly 0 or 1 may be written without decimals
    if (obj.at_key(key).get_int64().get(whole) != simdjson::SUCCESS) {
      ADD_FAILURE() << file_ << ": " << what << ": analyze --json has no number \"" << key << "\"";
      return;
    }
    analyze = double(whole);
  }
  same_value(what, analyze, oracle, std::max(relative_tolerance(analyze, oracle), 0.5e-4 + 1e-12));
}

void Checker::same_flag(const std::string& what, simdjson::dom::element obj, std::string_view key, bool oracle) {
  bool analyze = false;
  ++compared_;
  if (obj.at_key(key).get_bool().get(analyze) != simdjson::SUCCESS) {
    ADD_FAILURE() << file_ << ": " << what << ": analyze --json has no boolean \"" << key << "\"";
    return;
  }
  if (analyze != oracle) ADD_FAILURE() << file_ << ": " << what << ": analyze " << analyze << ", oracle " << oracle;
}

void Checker::expect(bool holds, const std::string& message) {
  ++compared_;
  if (!holds) ADD_FAILURE() << file_ << ": " << message;
}

}  // namespace gtv::oracle
