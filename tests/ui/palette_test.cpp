#include "gtv/ui/palette.h"

#include <gtest/gtest.h>

#include <set>

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

}  // namespace
}  // namespace gtv::ui
