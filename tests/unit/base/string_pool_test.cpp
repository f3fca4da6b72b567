#include "gtv/base/string_pool.h"

#include <gtest/gtest.h>

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

}  // namespace gtv
