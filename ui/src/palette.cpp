#include "gtv/ui/palette.h"

#include <algorithm>
#include <numeric>

namespace gtv::ui {

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

Rgb kernel_color(std::string_view kernel_name) {
  return kKernelPalette[stable_hash(kernel_name) % kKernelPalette.size()];
}

Rgb kind_color(EventKind kind) {
  switch (kind) {
    case EventKind::Kernel:
      return 0x4e79a7;
    case EventKind::Memcpy:
      return 0xc0392b;  // copies stand out: they are what serializes GPUs
    case EventKind::Memset:
      return 0xe67e22;
    case EventKind::Runtime:
      return 0x8fa8c8;
    case EventKind::Driver:
      return 0xa89bc9;
    case EventKind::Sync:
      return 0xd9534f;  // the host waiting
    case EventKind::CpuOp:
      return 0x7fb77e;
    case EventKind::Annotation:
      return 0xc9b458;
    case EventKind::Overhead:
      return 0x9e9e9e;
    case EventKind::Instant:
      return 0x333333;
    case EventKind::Other:
      return 0xb0b0b0;
  }
  return 0xb0b0b0;
}

Rgb event_color(EventKind kind, std::string_view name) {
  return kind == EventKind::Kernel ? kernel_color(name) : kind_color(kind);
}

std::string_view to_string(ColorMode mode) {
  switch (mode) {
    case ColorMode::Owner:
      return "model / range";
    case ColorMode::Kind:
      return "kind";
    case ColorMode::KernelName:
      return "kernel name";
    case ColorMode::Stream:
      return "stream";
  }
  return "kind";
}

std::size_t owner_palette_slot(std::string_view owner_name) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const auto first = std::find_if(owner_name.begin(), owner_name.end(), digit);
  if (first == owner_name.end()) return stable_hash(owner_name) % kOwnerPalette.size();
  std::size_t number = 0;
  for (auto it = first; it != owner_name.end() && digit(*it) && number < 1'000'000; ++it)
    number = number * 10 + static_cast<std::size_t>(*it - '0');
  return number % kOwnerPalette.size();
}

Rgb owner_color(std::string_view owner_name) { return kOwnerPalette[owner_palette_slot(owner_name)]; }

std::vector<Rgb> owner_colors(const std::vector<std::string>& names) {
  std::vector<std::size_t> order(names.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });
  std::array<bool, kOwnerPalette.size()> taken{};
  std::vector<Rgb> colors(names.size());
  for (std::size_t n = 0; n < order.size(); ++n) {
    std::size_t slot = owner_palette_slot(names[order[n]]);
    if (n < kOwnerPalette.size())  // past that, colours repeat whatever we do
      while (taken[slot]) slot = (slot + 1) % kOwnerPalette.size();
    taken[slot] = true;
    colors[order[n]] = kOwnerPalette[slot];
  }
  return colors;
}

Rgb stream_color(std::int64_t device, std::int64_t stream) {
  const std::string key = std::to_string(device) + "/" + std::to_string(stream);
  return kKernelPalette[stable_hash(key) % kKernelPalette.size()];
}

Rgb idle_cause_color(int cause) {
  // host blocked, host launching, host busy, another GPU's work, waiting on a dependency, warm-up, peer rank,
  // unknown, queued gap, tracing overhead
  constexpr std::array<Rgb, kIdleCauseColorCount> kIdleColors = {0xd62728, 0xff7f0e, 0xbcbd22, 0x555555, 0x9467bd,
                                                                 0x8c564b, 0x17becf, 0xbbbbbb, 0xe377c2, 0x2ca02c};
  if (cause < 0 || cause >= kIdleCauseColorCount) return 0xbbbbbb;
  return kIdleColors[static_cast<std::size_t>(cause)];
}

Rgb text_color_on(Rgb fill) {
  const int r = static_cast<int>((fill >> 16) & 0xff);
  const int g = static_cast<int>((fill >> 8) & 0xff);
  const int b = static_cast<int>(fill & 0xff);
  const int luma = (299 * r + 587 * g + 114 * b) / 1000;
  return luma > 150 ? 0x000000 : 0xffffff;
}

}  // namespace gtv::ui
