#include "gtv/ui/palette.h"

#include <algorithm>
#include <cmath>
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
      return role_color(ColorRole::Kernel);
    case EventKind::Memcpy:
      return role_color(ColorRole::Copy);  // copies stand out: they are what serializes GPUs
    case EventKind::Memset:
      return role_color(ColorRole::Memset);
    case EventKind::Runtime:
      return role_color(ColorRole::RuntimeCall);
    case EventKind::Driver:
      return role_color(ColorRole::DriverCall);
    case EventKind::Sync:
      return role_color(ColorRole::HostWaiting);
    case EventKind::CpuOp:
      return role_color(ColorRole::CpuOp);
    case EventKind::Annotation:
      return role_color(ColorRole::Annotation);
    case EventKind::Overhead:
      return role_color(ColorRole::TracingOverhead);
    case EventKind::Instant:
      return role_color(ColorRole::Instant);
    case EventKind::Other:
      return role_color(ColorRole::OtherEvent);
  }
  return role_color(ColorRole::OtherEvent);
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
  // "pid 1234 \u00b7 model 0 forward": the model's number, not the process's, picks the colour.
  if (const std::size_t joint = owner_name.rfind("\u00b7 "); joint != std::string_view::npos)
    owner_name.remove_prefix(joint + std::string_view("\u00b7 ").size());
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
  // In analysis::IdleCause order: host blocked, host launching, host busy, another GPU's work, waiting on a
  // dependency, warm-up, peer rank, unknown, queued gap, tracing overhead.
  constexpr std::array<ColorRole, kIdleCauseColorCount> kIdleRoles = {
      ColorRole::HostWaiting,    ColorRole::HostLaunching,  ColorRole::HostBusy, ColorRole::OtherGpuWork,
      ColorRole::DependencyWait, ColorRole::WarmupCause,    ColorRole::PeerRank, ColorRole::UnknownCause,
      ColorRole::QueuedGap,      ColorRole::TracingOverhead};
  if (cause < 0 || cause >= kIdleCauseColorCount) return role_color(ColorRole::UnknownCause);
  return role_color(kIdleRoles[static_cast<std::size_t>(cause)]);
}

Rgb text_color_on(Rgb fill) {
  const int r = static_cast<int>((fill >> 16) & 0xff);
  const int g = static_cast<int>((fill >> 8) & 0xff);
  const int b = static_cast<int>(fill & 0xff);
  const int luma = (299 * r + 587 * g + 114 * b) / 1000;
  return luma > 150 ? 0x000000 : 0xffffff;
}

double relative_luminance(Rgb color) {
  const auto linear = [](Rgb channel) {
    const double c = static_cast<double>(channel & 0xff) / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * linear(color >> 16) + 0.7152 * linear(color >> 8) + 0.0722 * linear(color);
}

double contrast_ratio(Rgb a, Rgb b) {
  const double la = relative_luminance(a), lb = relative_luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

namespace {

struct Lab {
  double l, a, b;
};

Lab to_lab(Rgb color) {
  const auto linear = [](Rgb channel) {
    const double c = static_cast<double>(channel & 0xff) / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  const double r = linear(color >> 16), g = linear(color >> 8), b = linear(color);
  const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
  const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
  const auto f = [](double t) { return t > 216.0 / 24389.0 ? std::cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

constexpr double kPi = 3.14159265358979323846;
double radians(double degrees) { return degrees * kPi / 180; }
double hue_degrees(double b, double a) {
  if (a == 0 && b == 0) return 0;
  const double h = std::atan2(b, a) * 180 / kPi;
  return h < 0 ? h + 360 : h;
}

}  // namespace

// Sharma, Wu and Dalal (2005), "The CIEDE2000 color-difference formula: implementation notes".
double color_difference(Rgb first, Rgb second) {
  const Lab p = to_lab(first), q = to_lab(second);
  const double c_mean = (std::hypot(p.a, p.b) + std::hypot(q.a, q.b)) / 2;
  const double c7 = std::pow(c_mean, 7);
  const double g = 0.5 * (1 - std::sqrt(c7 / (c7 + std::pow(25.0, 7))));
  const double a1 = (1 + g) * p.a, a2 = (1 + g) * q.a;
  const double c1 = std::hypot(a1, p.b), c2 = std::hypot(a2, q.b);
  const double h1 = hue_degrees(p.b, a1), h2 = hue_degrees(q.b, a2);
  const double dl = q.l - p.l, dc = c2 - c1;
  double dh = 0;
  if (c1 * c2 != 0) dh = std::fabs(h2 - h1) <= 180 ? h2 - h1 : (h2 - h1 > 180 ? h2 - h1 - 360 : h2 - h1 + 360);
  const double d_hue = 2 * std::sqrt(c1 * c2) * std::sin(radians(dh / 2));
  const double l_mean = (p.l + q.l) / 2, c_mean_p = (c1 + c2) / 2;
  double h_mean = h1 + h2;
  if (c1 * c2 != 0)
    h_mean = std::fabs(h1 - h2) <= 180 ? (h1 + h2) / 2 : (h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2);
  const double t = 1 - 0.17 * std::cos(radians(h_mean - 30)) + 0.24 * std::cos(radians(2 * h_mean)) +
                   0.32 * std::cos(radians(3 * h_mean + 6)) - 0.20 * std::cos(radians(4 * h_mean - 63));
  const double d_theta = 30 * std::exp(-std::pow((h_mean - 275) / 25, 2));
  const double cp7 = std::pow(c_mean_p, 7);
  const double r_c = 2 * std::sqrt(cp7 / (cp7 + std::pow(25.0, 7)));
  const double s_l = 1 + 0.015 * std::pow(l_mean - 50, 2) / std::sqrt(20 + std::pow(l_mean - 50, 2));
  const double s_c = 1 + 0.045 * c_mean_p, s_h = 1 + 0.015 * c_mean_p * t;
  const double r_t = -std::sin(radians(2 * d_theta)) * r_c;
  const double tl = dl / s_l, tc = dc / s_c, th = d_hue / s_h;
  return std::sqrt(tl * tl + tc * tc + th * th + r_t * tc * th);
}

Rgb readable_on(Rgb color, Rgb background, double min_ratio) {
  const Rgb toward = contrast_ratio(0xffffff, background) > contrast_ratio(0x000000, background) ? 0xffffff : 0x000000;
  constexpr int kSteps = 32;
  for (int step = 0; step <= kSteps; ++step) {
    Rgb mixed = 0;
    for (int shift : {16, 8, 0}) {
      const int c = static_cast<int>((color >> shift) & 0xff), t = static_cast<int>((toward >> shift) & 0xff);
      mixed |= static_cast<Rgb>((c * (kSteps - step) + t * step + kSteps / 2) / kSteps) << shift;
    }
    if (contrast_ratio(mixed, background) >= min_ratio) return mixed;
  }
  return toward;
}

}  // namespace gtv::ui
