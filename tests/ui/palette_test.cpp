#include "gtv/ui/palette.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtv/io/trace_file.h"
#include "gtv/ui/document_analysis.h"
#include "gtv/ui/legend.h"

namespace gtv::ui {
namespace {

TEST(Palette, HashIsFnv1a) {
  EXPECT_EQ(stable_hash(""), 14695981039346656037ull);
  EXPECT_EQ(stable_hash("a"), 0xaf63dc4c8601ec8cull);  // published FNV-1a 64 test vector
}

TEST(Palette, KernelColourComesFromTheNameOnly) {
  const std::string name = "ampere_sgemm_128x64_tn";
  EXPECT_EQ(kernel_color(name), kKernelPalette[stable_hash(name) % kKernelPalette.size()]);
  EXPECT_EQ(event_color(EventKind::Kernel, name), kernel_color(std::string(name)));
  EXPECT_EQ(event_color(EventKind::Memcpy, name), kind_color(EventKind::Memcpy));
}

TEST(Palette, EveryIdleCauseHasItsOwnColour) {
  std::set<Rgb> colours;
  for (int c = 0; c < kIdleCauseColorCount; ++c) colours.insert(idle_cause_color(c));
  EXPECT_EQ(colours.size(), static_cast<std::size_t>(kIdleCauseColorCount));
  EXPECT_EQ(idle_cause_color(-1), idle_cause_color(kIdleCauseColorCount));  // out of range: one neutral grey
}

TEST(Palette, TextContrast) {
  EXPECT_EQ(text_color_on(0xffffff), 0x000000u);
  EXPECT_EQ(text_color_on(0x000000), 0xffffffu);
}

TEST(Palette, ContrastRatioIsWcags) {
  EXPECT_NEAR(contrast_ratio(0xffffff, 0x000000), 21.0, 1e-9);
  EXPECT_NEAR(contrast_ratio(0x777777, 0xffffff), 4.48, 0.01);  // the well-known just-failing grey
  EXPECT_NEAR(contrast_ratio(0x123456, 0x123456), 1.0, 1e-9);
}

TEST(Palette, ReadableOnReachesTheContrastAndKeepsWhatAlreadyReads) {
  constexpr Rgb kLight = 0xffffff, kDark = 0x1e1f22;  // the themes' plot backgrounds
  for (const Rgb c : {0xd62728u, 0x2ca02cu, 0x1f77b4u, 0x808080u, 0xc06000u, 0xff9900u, 0xedc948u, 0x264478u})
    for (const Rgb bg : {kLight, kDark}) {
      const Rgb text = readable_on(c, bg);
      EXPECT_GE(contrast_ratio(text, bg), kMinTextContrast) << std::hex << c << " on " << bg;
      if (contrast_ratio(c, bg) >= kMinTextContrast) {
        EXPECT_EQ(text, c) << std::hex << c;
      }
    }
}

TEST(Palette, ColourDifferenceIsCiede2000) {
  // Values of the reference implementation (Sharma, Wu and Dalal's test data pass through the same formula).
  EXPECT_NEAR(color_difference(0x000000, 0xffffff), 100.0, 1e-3);
  EXPECT_NEAR(color_difference(0xc0392b, 0xd9534f), 9.8443, 1e-3);
  EXPECT_NEAR(color_difference(0xd62728, 0x2ca02c), 71.8283, 1e-3);
  EXPECT_NEAR(color_difference(0x4e79a7, 0x1f77b4), 5.0336, 1e-3);
  EXPECT_EQ(color_difference(0x123456, 0x123456), 0.0);
}

struct Named {
  Rgb rgb;
  std::string name;
};

// Every role, every kernel colour and the theme's translucent and strip colours: no two closer than
// kMinRoleDifference.
void expect_apart(const std::vector<Named>& colours, const std::string& where) {
  for (std::size_t i = 0; i < colours.size(); ++i)
    for (std::size_t j = i + 1; j < colours.size(); ++j) {
      if (colours[i].rgb == colours[j].rgb) continue;  // one role shown in two places
      EXPECT_GE(color_difference(colours[i].rgb, colours[j].rgb), kMinRoleDifference)
          << where << ": " << colours[i].name << " " << std::hex << colours[i].rgb << " vs " << colours[j].name << " "
          << colours[j].rgb;
    }
}

constexpr Rgb kLightBackground = 0xffffff, kLightStrip = 0xeef0f3;  // light_theme(): background, header_background
constexpr Rgb kDarkBackground = 0x1e1f22, kDarkStrip = 0x2b2d31;    // dark_theme()

TEST(Palette, RolesAreOneTableOfDistinctColours) {
  std::set<Rgb> distinct;
  for (std::size_t i = 0; i < kRoleColors.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kRoleColors[i].role), i);  // the table is in enum order
    distinct.insert(kRoleColors[i].rgb);
  }
  EXPECT_EQ(distinct.size(), kRoleColors.size());
  for (const auto& [background, strip] :
       {std::pair{kLightBackground, kLightStrip}, std::pair{kDarkBackground, kDarkStrip}}) {
    std::vector<Named> colours;
    for (const RoleColor& r : kRoleColors) colours.push_back({r.rgb, std::string(r.name)});
    for (std::size_t k = 0; k < kKernelPalette.size(); ++k)
      colours.push_back({kKernelPalette[k], "kernel colour " + std::to_string(k)});
    colours.push_back({blend_over(kWarmupRgb, kWarmupAlpha, background), "warm-up band"});
    colours.push_back({strip, "no GPU busy"});
    expect_apart(colours, background == kLightBackground ? "light" : "dark");
  }
  // The roles are what the drawing code uses.
  EXPECT_EQ(kind_color(EventKind::Memcpy), role_color(ColorRole::Copy));
  EXPECT_EQ(kind_color(EventKind::Sync), idle_cause_color(0));  // a Sync call and "host blocked": one meaning
  EXPECT_EQ(bracket_color(0), role_color(ColorRole::Stopwatch));
  EXPECT_EQ(kKernelPalette[0], kind_color(EventKind::Kernel));
  for (const Rgb c : kOwnerPalette)
    EXPECT_NE(std::find(kKernelPalette.begin(), kKernelPalette.end(), c), kKernelPalette.end()) << std::hex << c;
}

// What the Legend tab shows, in every colour mode and both themes, on recordings with owners, warm-up, idle causes
// and brackets: the reds of copies, host waiting and the stopwatch are told apart.
TEST(Palette, LegendColoursAreApartInEveryModeAndTheme) {
  for (const char* name : {"sequential", "processes", "timing-methods", "warmup"}) {
    auto trace = io::read_trace(std::string(GTV_SOURCE_DIR) + "/resources/traces/h200x2/" + name + ".json.gz");
    ASSERT_TRUE(trace.ok()) << name;
    const DocumentAnalysis analysis = analyse_document(*trace);
    for (int mode = 0; mode < kColorModeCount; ++mode)
      for (const auto& [background, strip] :
           {std::pair{kLightBackground, kLightStrip}, std::pair{kDarkBackground, kDarkStrip}}) {
        LegendOptions options;
        options.color_mode = static_cast<ColorMode>(mode);
        options.background = background;
        options.strip_background = strip;
        std::vector<Named> colours;
        for (const LegendGroup& g : legend_groups(*trace, analysis, options))
          for (const LegendEntry& e : g.entries) colours.push_back({e.color, g.title + ": " + e.label});
        EXPECT_GT(colours.size(), 30u);
        expect_apart(colours, std::string(name) + " " + std::string(to_string(static_cast<ColorMode>(mode))) +
                                  (background == kLightBackground ? " light" : " dark"));
      }
  }
}

}  // namespace
}  // namespace gtv::ui
