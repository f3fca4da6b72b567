// The scenario catalogue, with no LibTorch: names in order, summaries, the embedded explanations and their lessons.
#include "gtv/experiments/catalog.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gtv/config.h"

namespace gtv::exp {
namespace {

TEST(Catalog, ListsTheSeedScenariosInOrder) {
  const auto scenarios = list_scenarios();
  ASSERT_GE(scenarios.size(), 5u);
  const char* seed[] = {"baseline", "sequential", "sequential-to", "list", "streams"};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(scenarios[i].name, seed[i]);
}

TEST(Catalog, EveryScenarioHasASummaryAndAnEmbeddedExplanation) {
  for (const auto& info : list_scenarios()) {
    EXPECT_FALSE(info.summary.empty()) << info.name;
    auto text = scenario_explanation(info.name);
    ASSERT_TRUE(text.has_value()) << info.name;
    EXPECT_EQ(text->rfind("# " + info.name + " ", 0), 0u) << info.name << " explanation must start with its title";
    EXPECT_FALSE(scenario_lesson(info.name).empty()) << info.name;
  }
}

TEST(Catalog, TheEmbeddedTextIsTheResourceFile) {
  std::ifstream in(GTV_SOURCE_DIR "/resources/scenarios/streams.md", std::ios::binary);
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(scenario_explanation("streams"), text.str());
}

TEST(Catalog, UnknownNamesHaveNoExplanationOrInfo) {
  EXPECT_FALSE(scenario_explanation("no-such-scenario").has_value());
  EXPECT_FALSE(find_scenario("no-such-scenario").has_value());
  EXPECT_EQ(scenario_lesson("no-such-scenario"), "");
  EXPECT_EQ(find_scenario("streams")->needs_gpu, true);
}

TEST(LessonSentence, FirstSentenceOfTheLessonParagraph) {
  const char* md =
      "# demo\n\n**What runs.** Two models.\n\n**Lesson.** Launches are asynchronous. So one thread\n"
      "keeps two GPUs busy.\n\n**On the CPU.** Nothing.\n";
  EXPECT_EQ(lesson_sentence(md), "Launches are asynchronous.");
  const char* wrapped = "**Lesson.** A sentence that\nwraps over lines\n";
  EXPECT_EQ(lesson_sentence(wrapped), "A sentence that wraps over lines");
}

TEST(LessonSentence, WithoutLessonTheFirstParagraph) {
  EXPECT_EQ(lesson_sentence("# title\n\nFirst one. Second one.\n"), "First one.");
  EXPECT_EQ(lesson_sentence(""), "");
}

TEST(LessonSentence, BundledStreamsExplanation) {
  EXPECT_EQ(scenario_lesson("streams"),
            "Streams help work on one GPU overlap; they are not what makes several GPUs run at once.");
}

}  // namespace
}  // namespace gtv::exp
