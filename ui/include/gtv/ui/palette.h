#pragma once
// Event colours as 0xRRGGBB, with no Qt so they are unit tested. Kernels get a colour from a hash of their
// name, so one kernel looks the same in every trace and every run; everything else is coloured by kind.
#include <array>
#include <cstdint>
#include <string_view>

#include "gtv/model/event.h"

namespace gtv::ui {

using Rgb = std::uint32_t;

// Distinct mid-tone colours that keep white or black names readable.
inline constexpr std::array<Rgb, 16> kKernelPalette = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f, 0xedc948,
                                                       0xb07aa1, 0xff9da7, 0x9c755f, 0x86bcb6, 0xd37295, 0x8cd17d,
                                                       0xb6992d, 0x499894, 0xf1ce63, 0xa0cbe8};

// FNV-1a, 64 bit: stable across runs and platforms (std::hash is not).
[[nodiscard]] std::uint64_t stable_hash(std::string_view text);
[[nodiscard]] Rgb kernel_color(std::string_view kernel_name);
// Colour of a non-kernel event by kind (copies, memsets, API calls, ops...).
[[nodiscard]] Rgb kind_color(EventKind kind);
[[nodiscard]] Rgb event_color(EventKind kind, std::string_view name);
// Colour of an idle-interval cause (analysis::IdleCause as an index): nine hues far apart, so the causes of a
// GPU's idle time tell apart at a glance in the idle rows under the lanes; out-of-range indices get grey.
inline constexpr int kIdleCauseColorCount = 9;
[[nodiscard]] Rgb idle_cause_color(int cause);
// Name text colour that reads on fill: black on light fills, white on dark ones.
[[nodiscard]] Rgb text_color_on(Rgb fill);

}  // namespace gtv::ui
