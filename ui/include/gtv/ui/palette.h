#pragma once
// Event colours as 0xRRGGBB, with no Qt so they are unit tested. Kernels get a colour from a hash of their
// name, so one kernel looks the same in every trace and every run; everything else is coloured by kind.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtv/model/event.h"
#include "gtv/ui/color_roles.h"

namespace gtv::ui {

// Distinct mid-tone colours that keep white or black names readable; the first is the kernel role's steel blue, and
// none is near another role's colour (color_roles.h).
inline constexpr std::array<Rgb, 16> kKernelPalette = {role_color(ColorRole::Kernel),
                                                       0xf28e2b,
                                                       0xe15759,
                                                       0x43b393,
                                                       0x59a14f,
                                                       0xffbd78,
                                                       0x986e8f,
                                                       0xff9da7,
                                                       0x9c755f,
                                                       0x86bcb6,
                                                       0xd37295,
                                                       0x8cd17d,
                                                       0xb6992d,
                                                       0x499894,
                                                       0xf1ce63,
                                                       0xa0cbe8};

// FNV-1a, 64 bit: stable across runs and platforms (std::hash is not).
[[nodiscard]] std::uint64_t stable_hash(std::string_view text);
[[nodiscard]] Rgb kernel_color(std::string_view kernel_name);
// Colour of a non-kernel event by kind (copies, memsets, API calls, ops...).
[[nodiscard]] Rgb kind_color(EventKind kind);
[[nodiscard]] Rgb event_color(EventKind kind, std::string_view name);
// What the timeline colours events by: the model or range that launched the GPU work (work_owner.h), the kind,
// the kernel's name, or the GPU stream.
enum class ColorMode : std::uint8_t { Owner, Kind, KernelName, Stream };
inline constexpr int kColorModeCount = 4;
[[nodiscard]] std::string_view to_string(ColorMode mode);  // "model / range", "kind", "kernel name", "stream"

// Owner colours: far-apart hues of kKernelPalette, none the steel blue of an unowned kernel (kind_color), so work
// with no owner never passes for an owner's.
inline constexpr std::array<Rgb, 10> kOwnerPalette = {0xf28e2b, 0x59a14f, 0x986e8f, 0xe15759, 0x499894,
                                                      0xf1ce63, 0xff9da7, 0x9c755f, 0x43b393, 0xb6992d};
// A merged block whose events have no majority owner.
inline constexpr Rgb kMixedOwnersColor = role_color(ColorRole::MixedOwners);
// Palette slot of an owner: the first number in its name ("model 2 forward" -> 2), so model N has one colour in
// every trace; a name without a number hashes. An owner named with its process ("pid 1234 \u00b7 model 0 forward")
// takes its model's number.
[[nodiscard]] std::size_t owner_palette_slot(std::string_view owner_name);
[[nodiscard]] Rgb owner_color(std::string_view owner_name);
// The colours of one trace's owners (per index of `names`): each its owner_color unless a name before it in sorted
// order took that slot, then the next free one, so up to kOwnerPalette.size() owners all differ. The legend uses
// this (or WorkOwners::colors, which is this) to match the timeline.
[[nodiscard]] std::vector<Rgb> owner_colors(const std::vector<std::string>& names);
// A GPU stream's colour in ColorMode::Stream.
[[nodiscard]] Rgb stream_color(std::int64_t device, std::int64_t stream);
// Colour of an idle-interval cause (analysis::IdleCause as an index): the role of each cause, so the causes of a
// GPU's idle time tell apart at a glance in the idle rows under the lanes; out-of-range indices get "unknown".
inline constexpr int kIdleCauseColorCount = 10;
[[nodiscard]] Rgb idle_cause_color(int cause);
// Name text colour that reads on fill: black on light fills, white on dark ones.
[[nodiscard]] Rgb text_color_on(Rgb fill);
// WCAG 2.x relative luminance (0 black .. 1 white) and contrast ratio (1 .. 21) of two colours.
[[nodiscard]] double relative_luminance(Rgb color);
[[nodiscard]] double contrast_ratio(Rgb a, Rgb b);
// CIEDE2000 colour difference (D65, sRGB): about 1 is the smallest difference people notice side by side, 10 and
// more tells two colours apart at a glance in a legend.
[[nodiscard]] double color_difference(Rgb a, Rgb b);
// Text in a role's colour that reads on `background`: `color` mixed towards white (dark background) or black (light
// background) just far enough for a contrast ratio of min_ratio (WCAG AA for body text is 4.5).
inline constexpr double kMinTextContrast = 4.5;
inline constexpr double kMinLineContrast = 3.0;  // WCAG's minimum for lines and other non-text marks
[[nodiscard]] Rgb readable_on(Rgb color, Rgb background, double min_ratio = kMinTextContrast);

}  // namespace gtv::ui
