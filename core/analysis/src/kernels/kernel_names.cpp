#include "gtv/analysis/kernel_names.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <string>

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

constexpr std::string_view kEllipsis = "\u2026";

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

std::size_t utf8_length(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return !is_continuation_byte(c); }));
}

// The byte offset where the character numbered `chars` starts (s.size() past the end).
std::size_t byte_offset(std::string_view s, std::size_t chars) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (is_continuation_byte(s[i])) continue;
    if (seen++ == chars) return i;
  }
  return s.size();
}

// The deepest nesting of template argument lists; -1 when the angle brackets do not pair up (an "operator<" or
// "->" in a name), so nothing is collapsed by depth.
int template_depth(std::string_view s) {
  int depth = 0, deepest = 0;
  for (const char c : s) {
    if (c == '<') deepest = std::max(deepest, ++depth);
    if (c == '>' && --depth < 0) return -1;
  }
  return depth == 0 ? deepest : -1;
}

// Template argument lists nested deeper than keep_depth become "<…>": "a<b<c>, d>" keeps "a<b<…>, d>" at 1 and
// "a<…>" at 0.
std::string collapse_templates(std::string_view s, int keep_depth) {
  std::string out;
  int depth = 0;
  for (const char c : s) {
    if (c == '<') {
      ++depth;
      if (depth <= keep_depth + 1) out += c;
      if (depth == keep_depth + 1) out += kEllipsis;
      continue;
    }
    if (c == '>') {
      if (depth <= keep_depth + 1) out += c;
      --depth;
      continue;
    }
    if (depth <= keep_depth) out += c;
  }
  return out;
}

// The qualified name a mangled symbol starts with, "_ZN17cutlass__5x_cudnn6KernelI..." ->
// "cutlass__5x_cudnn::Kernel<…>": its source names up to the first template argument list; "" when it does not start
// with them. libstdc++'s demangler refuses symbols over 1,024 characters (its recursion limit: two components a
// character), and generated CUTLASS kernels are longer, so this is what a reader gets of them.
std::string qualified_name_of_symbol(std::string_view s) {
  if (s.substr(0, 2) != "_Z") return {};
  std::size_t i = 2;
  if (i < s.size() && s[i] == 'N') ++i;
  std::string out;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) != 0) {
    std::size_t length = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) != 0 && length <= s.size())
      length = length * 10 + static_cast<std::size_t>(s[i++] - '0');
    if (length == 0 || length > s.size() - i) return {};
    const std::string_view source = s.substr(i, length);
    i += length;
    if (!out.empty()) out += "::";
    out += source == "_GLOBAL__N_1" ? std::string_view("(anonymous namespace)") : source;
  }
  if (!out.empty() && i < s.size() && s[i] == 'I') out += "<" + std::string(kEllipsis) + ">";
  return out;
}

// The start and the end of s around "…", budget_chars characters in all.
std::string elide_middle(std::string_view s, std::size_t budget_chars) {
  const std::size_t length = utf8_length(s);
  if (length <= budget_chars) return std::string(s);
  const std::size_t tail = (budget_chars - 1) / 2, head = budget_chars - 1 - tail;
  return std::string(s.substr(0, byte_offset(s, head))) + std::string(kEllipsis) +
         std::string(s.substr(byte_offset(s, length - tail)));
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
  // A symbol the demangler refused: its qualified start, in ASCII for the report's aligned tables.
  if (full.substr(0, 2) == "_Z")
    if (std::string qualified = qualified_name_of_symbol(full); !qualified.empty()) {
      if (const std::size_t at = qualified.rfind(kEllipsis); at != std::string::npos)
        qualified.replace(at, kEllipsis.size(), "...");
      return qualified.size() > kMaxShortLength ? qualified.substr(0, kMaxShortLength - 3) + "..." : qualified;
    }
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

std::string kernel_display_name(std::string_view name, std::size_t budget_chars) {
  budget_chars = std::max<std::size_t>(budget_chars, 16);
  std::string full = demangle(name);
  if (full.substr(0, 2) == "_Z")
    if (std::string qualified = qualified_name_of_symbol(full); !qualified.empty()) full = std::move(qualified);
  std::string_view s = full;
  if (s.substr(0, 5) == "void ") s.remove_prefix(5);
  if (utf8_length(s) <= budget_chars) return std::string(s);
  const std::string_view call = without_parameters(s);
  if (utf8_length(call) <= budget_chars) return std::string(call);
  const int depth = template_depth(call);
  for (int keep = depth - 1; keep >= 0; --keep)
    if (std::string shorter = collapse_templates(call, keep); utf8_length(shorter) <= budget_chars) return shorter;
  return elide_middle(depth > 0 ? collapse_templates(call, 0) : std::string(call), budget_chars);
}

}  // namespace gtv::analysis
