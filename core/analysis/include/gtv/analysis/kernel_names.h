#pragma once
// Kernel names for people: demangled, and shortened for a label or a legend. A trace may spell a kernel as its
// mangled symbol ("_ZN17cutlass__5x_cudnn6KernelI...", 1,700 characters) or as the demangled C++ with every
// template argument and parameter; neither fits a legend, and the mangled one says nothing to a reader.
#include <cstddef>
#include <string>
#include <string_view>

namespace gtv::analysis {

// The demangled form of a mangled (Itanium "_Z...") name, or the name unchanged.
[[nodiscard]] std::string demangle(std::string_view name);

// "void at::native::vectorized_elementwise_kernel<4, Foo>(int, Foo)" -> "vectorized_elementwise_kernel":
// demangled, return type, namespaces, template arguments and parameters removed.
[[nodiscard]] std::string shorten_kernel_name(std::string_view name);

// A name of at most budget_chars characters (UTF-8 characters; budget_chars >= 16) that keeps as much of the
// demangled name as fits, dropping in this order until it fits: the return type "void ", the parameter list, the
// template arguments nested deepest (each list becomes "<…>", the outer lists kept while they fit), then all
// template arguments. The function's qualified name stays whole when it fits; one longer than the budget (a
// 150-character generated kernel name) keeps its start and its end around "…". Names that differ only in what
// was dropped shorten to the same text: where they are listed together the caller tells them apart. A mangled
// symbol the demangler refuses (over 1,024 characters) is shown by the qualified name it starts with.
inline constexpr std::size_t kKernelLabelChars = 80;
[[nodiscard]] std::string kernel_display_name(std::string_view name, std::size_t budget_chars = kKernelLabelChars);

}  // namespace gtv::analysis
