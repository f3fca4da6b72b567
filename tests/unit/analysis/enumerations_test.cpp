// Every enumeration the reports and the window name has one table (gtv/base/enum_table.h): its keys are stable
// snake_case JSON keys and its words are what people read. Two values with one key or one phrase could not be
// told apart in a report or a legend.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "gtv/analysis/host_blocking.h"
#include "gtv/analysis/idle_causes.h"
#include "gtv/analysis/warmup.h"
#include "gtv/causal/critical_path.h"

namespace gtv {
namespace {

template <class Enum, std::size_t N>
void expect_one_table(const std::array<EnumEntry<Enum>, N>& table, std::string_view (*words_of)(Enum),
                      std::string_view (*key_of)(Enum)) {
  const std::regex snake_case("[a-z][a-z0-9]*(_[a-z0-9]+)*");
  std::set<std::string_view> keys;
  std::set<std::string_view> words;
  for (std::size_t i = 0; i < N; ++i) {
    const EnumEntry<Enum>& e = table[i];
    SCOPED_TRACE(std::string(e.key));
    EXPECT_EQ(static_cast<std::size_t>(e.value), i);
    EXPECT_TRUE(std::regex_match(std::string(e.key), snake_case));
    EXPECT_FALSE(e.words.empty());
    EXPECT_TRUE(keys.insert(e.key).second) << "key used twice";
    EXPECT_TRUE(words.insert(e.words).second) << "words used twice";
    // The functions the code calls answer from the table.
    EXPECT_EQ(words_of(e.value), e.words);
    EXPECT_EQ(key_of(e.value), e.key);
  }
}

TEST(Enumerations, IdleCausesHaveOneTable) {
  expect_one_table(analysis::kIdleCauses, &analysis::to_string, &analysis::idle_cause_key);
  EXPECT_EQ(analysis::kIdleCauseCount, 10);
}

TEST(Enumerations, WarmUpCausesHaveOneTable) {
  expect_one_table(analysis::kWarmUpCauses, &analysis::to_string, &analysis::warmup_cause_key);
}

TEST(Enumerations, BlockingKindsHaveOneTable) {
  expect_one_table(analysis::kBlockingKinds, &analysis::to_string, &analysis::blocking_kind_key);
}

TEST(Enumerations, CriticalPathSegmentsHaveOneTable) {
  expect_one_table(causal::kSegmentKinds, &causal::to_string, &causal::segment_key);
}

}  // namespace
}  // namespace gtv
