#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include "gtv/analysis/kernel_stats.h"

namespace gtv::analysis {
namespace {

constexpr std::size_t kMaxShortLength = 80;

// Drops a trailing parameter list "(...)" (parentheses balanced, so "(anonymous namespace)" inside survives).
std::string_view without_parameters(std::string_view s) {
  if (s.empty() || s.back() != ')') return s;
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i == 0 ? s : s.substr(0, i);
  }
  return s;
}

std::string without_template_arguments(std::string_view s) {
  std::string out;
  int depth = 0;
  for (const char c : s) {
    if (c == '<') ++depth;
    if (depth == 0) out += c;
    if (c == '>' && depth > 0) --depth;
  }
  return out;
}

// The last "::"-separated component outside parentheses.
std::string_view last_component(std::string_view s) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    if (depth == 0 && s[i] == ':' && s[i + 1] == ':') start = i + 2;
  }
  return start < s.size() ? s.substr(start) : s;
}

// Wrapper kernels ("cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_tn_align1>") say nothing by their own
// name: the first template argument is the real kernel.
bool is_generic_wrapper(std::string_view base) {
  return base.rfind("Kernel", 0) == 0 || base == "kernel" || base == "device_kernel";
}

std::string first_template_argument(std::string_view s, std::string_view base) {
  const std::size_t at = s.find(std::string(base) + "<");
  if (at == std::string_view::npos) return {};
  int depth = 0;
  const std::size_t begin = at + base.size() + 1;
  for (std::size_t i = begin; i < s.size(); ++i) {
    if (s[i] == '<' || s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
    if (s[i] == '>' && depth-- == 0) return std::string(s.substr(begin, i - begin));
    if (s[i] == ',' && depth == 0) return std::string(s.substr(begin, i - begin));
  }
  return {};
}

}  // namespace

std::string demangle(std::string_view name) {
  if (name.substr(0, 2) != "_Z") return std::string(name);
  int status = 0;
  const std::string mangled(name);
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string shorten_kernel_name(std::string_view name) {
  const std::string full = demangle(name);
  std::string_view s = full;
  if (s.substr(0, 5) == "void ") s.remove_prefix(5);
  const std::string no_templates = without_template_arguments(without_parameters(s));
  std::string out(last_component(no_templates));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (is_generic_wrapper(out)) {
    const std::string arg = first_template_argument(without_parameters(s), out);
    const std::string inner(last_component(without_template_arguments(arg)));
    // Only a kernel-like identifier ("cutlass_80_simt_sgemm_..."), not a type such as "int" or "float".
    const bool identifier = std::all_of(inner.begin(), inner.end(),
                                        [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (identifier && inner.find('_') != std::string::npos) out += "<" + inner + ">";
  }
  if (out.empty()) out = full;
  if (out.size() > kMaxShortLength) out = out.substr(0, kMaxShortLength - 3) + "...";
  return out;
}

}  // namespace gtv::analysis
