// Tab titles of same-named files: the shortest parent folders that tell them apart.
#include "gtv/ui/tab_titles.h"

#include <gtest/gtest.h>

using gtv::ui::distinct_tab_titles;

TEST(TabTitles, UniqueFileNamesStayBare) {
  EXPECT_EQ(distinct_tab_titles({"/a/sequential.json.gz", "/a/warmup.json.gz"}),
            (std::vector<std::string>{"sequential.json.gz", "warmup.json.gz"}));
}

TEST(TabTitles, SameNameGetsTheDistinguishingParentFolder) {
  EXPECT_EQ(
      distinct_tab_titles(
          {"/repo/resources/traces/h200x2/warmup.json.gz", "/home/me/Downloads/warmup.json.gz", "/repo/other.json"}),
      (std::vector<std::string>{"warmup.json.gz \u2014 h200x2", "warmup.json.gz \u2014 Downloads", "other.json"}));
}

TEST(TabTitles, SameParentFolderNameGoesUpUntilTheyDiffer) {
  EXPECT_EQ(distinct_tab_titles({"/x/run/t.json", "/y/run/t.json", "/z/t.json"}),
            (std::vector<std::string>{"t.json \u2014 x/run", "t.json \u2014 y/run", "t.json \u2014 z"}));
}

TEST(TabTitles, TheSameFileOpenedAgainIsNumbered) {
  EXPECT_EQ(distinct_tab_titles({"/a/t.json", "/a/t.json"}), (std::vector<std::string>{"t.json", "t.json (2)"}));
}
