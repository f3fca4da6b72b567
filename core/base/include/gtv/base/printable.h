#pragma once
// Text from a trace file (kernel, thread, process, range and file names) shown on a terminal or in Markdown: a
// hostile or broken name must not move the cursor, recolour the screen, end a line or break a table, so control
// characters and bytes that are not UTF-8 are shown as \xNN.
#include <cstddef>
#include <string>
#include <string_view>

namespace gtv {

// Length of the valid UTF-8 sequence that starts at text[i] (1 for ASCII), or 0 when the bytes there are not
// UTF-8 (a stray continuation byte, overlong form, surrogate, beyond U+10FFFF, or cut off by the end).
[[nodiscard]] std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// The text with C0 controls (NUL..0x1f), DEL, C1 controls (U+0080..U+009F, shown as the two bytes of their UTF-8
// form) and every byte that is not part of valid UTF-8 replaced by \xNN (lower-case hex). Printable ASCII and
// valid UTF-8 outside C1 are kept as they are, so ordinary names (including non-Latin ones) read unchanged.
[[nodiscard]] std::string printable(std::string_view text);

// The text as a quoted JSON string: besides what JSON requires, DEL and the C1 controls are written as \u escapes
// (the same string to a parser, harmless on a terminal) and bytes that are not UTF-8 as U+FFFD, so the output is
// always valid JSON.
[[nodiscard]] std::string json_quoted(std::string_view text);

}  // namespace gtv
