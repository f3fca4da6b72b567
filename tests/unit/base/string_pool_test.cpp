#include "gtv/base/string_pool.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gtv {

TEST(StringPool, EmptyStringIsIdZero) {
  StringPool pool;
  EXPECT_EQ(pool.intern(""), kEmptyString);
  EXPECT_EQ(pool.view(kEmptyString), "");
}

TEST(StringPool, InternsEachTextOnce) {
  StringPool pool;
  const StringId a = pool.intern("volta_sgemm_128x64_nn");
  const StringId b = pool.intern("cudaLaunchKernel");
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.intern(std::string("volta_sgemm_128x64_nn")), a);
  EXPECT_EQ(pool.view(a), "volta_sgemm_128x64_nn");
  EXPECT_EQ(pool.find("cudaLaunchKernel"), b);
  EXPECT_EQ(pool.find("missing"), kEmptyString);
  EXPECT_EQ(pool.size(), 3u);
}

TEST(StringPool, ViewsSurviveGrowthAndMove) {
  StringPool pool;
  const StringId first = pool.intern("short");
  const std::string_view before = pool.view(first);
  for (int i = 0; i < 10000; ++i) (void)pool.intern("name " + std::to_string(i));
  EXPECT_EQ(pool.view(first).data(), before.data());
  StringPool moved = std::move(pool);
  EXPECT_EQ(moved.view(first), "short");
  EXPECT_EQ(moved.find("name 9999"), moved.intern("name 9999"));
}

TEST(StringPool, TextsDifferingInOneByteStayApart) {
  // Every length from 0 to 600 (the hash reads 16 bytes per step plus a tail) and a change at every position.
  StringPool pool;
  std::vector<std::pair<std::string, StringId>> seen;
  for (std::size_t length = 0; length <= 600; length += (length < 40 ? 1 : 37)) {
    const std::string base(length, 'k');
    seen.emplace_back(base, pool.intern(base));
    for (std::size_t at = 0; at < length; ++at) {
      std::string changed = base;
      changed[at] = 'K';
      seen.emplace_back(changed, pool.intern(changed));
    }
  }
  EXPECT_EQ(pool.size(), seen.size() + (seen.front().first.empty() ? 0 : 1));
  for (const auto& [text, id] : seen) {
    EXPECT_EQ(pool.view(id), text);
    EXPECT_EQ(pool.find(text), id);
  }
}

}  // namespace gtv
