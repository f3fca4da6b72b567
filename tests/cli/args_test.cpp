// Unit tests of gtv-cli's argument parser and of `run`'s options, shared with the runner gtv-run.
#include "args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_options.h"

namespace gtv::cli {
namespace {

CommandSpec test_spec() {
  return CommandSpec{
      .name = "demo",
      .summary = "a demo command",
      .positionals = "A [B]",
      .min_positionals = 1,
      .max_positionals = 2,
      .options = {flag_option("--json", "print JSON"), value_option("--format", "FMT", "output format"),
                  value_option("--output", "FILE", "where to write", 'o')},
      .details = "",
  };
}

Expected<ParsedArgs> parse(std::vector<std::string> args) { return parse_args(test_spec(), args); }

TEST(ArgsTest, PositionalsFlagsAndValuesInAnyOrder) {
  auto parsed = parse({"--format", "json", "a.json", "--json", "-o", "out.json", "b.json"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->positionals, (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_EQ(parsed->value("--format"), "json");
  EXPECT_EQ(parsed->value("--output"), "out.json");  // the short alias stores under the long name
  EXPECT_TRUE(parsed->has("--json"));
  EXPECT_EQ(parsed->value("--json"), "");
  EXPECT_FALSE(parsed->help);
}

TEST(ArgsTest, InlineValueAndEndOfOptions) {
  auto parsed = parse({"--format=markdown", "--", "--json", "-o"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->value("--format"), "markdown");
  EXPECT_EQ(parsed->positionals, (std::vector<std::string>{"--json", "-o"}));
  EXPECT_FALSE(parsed->has("--json"));
}

TEST(ArgsTest, UsageErrorsAreOneLineNamingTheProblem) {
  EXPECT_EQ(parse({"a", "--bogus"}).error().message, "unknown option --bogus");
  EXPECT_EQ(parse({"a", "-x"}).error().message, "unknown option -x");
  EXPECT_EQ(parse({"a", "--format"}).error().message, "option --format needs a value (FMT)");
  EXPECT_EQ(parse({"a", "--json=1"}).error().message, "option --json takes no value");
  EXPECT_EQ(parse({}).error().message, "missing argument: expected A [B]");
  EXPECT_EQ(parse({"a", "b", "c"}).error().message, "unexpected argument 'c'");
}

TEST(ArgsTest, HelpSkipsPositionalCounts) {
  auto parsed = parse({"--help"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->help);
  EXPECT_TRUE(parse({"a", "b", "c", "-h"})->help);
}

TEST(ArgsTest, UsageTextListsEveryOption) {
  EXPECT_EQ(usage_line(test_spec()), "usage: gtv-cli demo A [B] [--json] [--format FMT] [-o FILE]");
  const std::string text = usage_text(test_spec());
  for (const char* part : {"-o, --output FILE", "--format FMT", "--json", "-h, --help", "a demo command"})
    EXPECT_NE(text.find(part), std::string::npos) << part;
}

// A command line to run goes after "--" and after every option, since options written after "--" are its own.
TEST(ArgsTest, ACommandLineToRunComesLastInTheUsageLine) {
  CommandSpec spec = test_spec();
  spec.positionals = "-- CMD [ARGS...]";
  spec.max_positionals = 10;
  EXPECT_EQ(usage_line(spec), "usage: gtv-cli demo [--json] [--format FMT] [-o FILE] -- CMD [ARGS...]");
  const std::vector<std::string> args = {"-o", "x", "--", "python3", "-o", "y"};
  auto parsed = parse_args(spec, args);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->value("--output"), "x");
  EXPECT_EQ(parsed->positionals, (std::vector<std::string>{"python3", "-o", "y"}));
}

TEST(ArgsTest, ParseCount) {
  EXPECT_EQ(parse_count("--iters", "10").value(), 10);
  EXPECT_EQ(parse_count("--iters", "0").value(), 0);
  EXPECT_EQ(parse_count("--iters", "-1").error().message, "option --iters needs a non-negative integer, got '-1'");
  EXPECT_FALSE(parse_count("--iters", "3x").ok());
  EXPECT_FALSE(parse_count("--iters", "").ok());
  EXPECT_FALSE(parse_count("--iters", "99999999999999999999").ok());
}

TEST(RunOptionsTest, DeviceList) {
  EXPECT_EQ(parse_device_list("0,1,0").value(), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(parse_device_list("2").value(), (std::vector<int>{2}));
  EXPECT_FALSE(parse_device_list("0,,1").ok());
  EXPECT_FALSE(parse_device_list("a").ok());
  EXPECT_FALSE(parse_device_list("").ok());
}

TEST(RunOptionsTest, OptionsReachTheConfig) {
  CommandSpec spec = test_spec();
  spec.options = {value_option("--output", "FILE", "", 'o'),
                  value_option("--models", "N", ""),
                  value_option("--hidden", "H", ""),
                  value_option("--batch", "B", ""),
                  value_option("--iters", "K", ""),
                  value_option("--devices", "LIST", ""),
                  flag_option("--no-warmup", ""),
                  flag_option("--all-api", "")};
  const std::vector<std::string> args = {"streams",  "-o",        "t.json",  "--models",    "2",
                                         "--hidden", "64",        "--batch", "8",           "--iters",
                                         "4",        "--devices", "1,0",     "--no-warmup", "--all-api"};
  auto parsed = parse_args(spec, args);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  auto config = run_config_from_args(*parsed);
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->scenario, "streams");
  EXPECT_EQ(config->models, 2);
  EXPECT_EQ(config->hidden, 64);
  EXPECT_EQ(config->batch, 8);
  EXPECT_EQ(config->iters, 4);
  EXPECT_EQ(config->devices, (std::vector<int>{1, 0}));
  EXPECT_FALSE(config->warmup);
  EXPECT_TRUE(config->all_api);

  auto zero = parse_args(spec, std::vector<std::string>{"streams", "-o", "t.json", "--iters", "0"});
  EXPECT_EQ(run_config_from_args(*zero).error().message, "option --iters needs a positive integer, got '0'");
  auto no_output = parse_args(spec, std::vector<std::string>{"streams"});
  EXPECT_FALSE(run_config_from_args(*no_output).ok());
}

// The desktop program starts the runner with exp::run_arguments: read back by `run`'s own options, they give the
// same config.
TEST(RunOptionsTest, RunArgumentsReadBackAsTheSameConfig) {
  exp::RunConfig config;
  config.scenario = "threads";
  config.models = 4;
  config.batch = 7;
  config.iters = 3;
  for (const bool variant : {false, true}) {
    config.hidden = variant ? 96 : 0;
    config.devices = variant ? std::vector<int>{1, 0} : std::vector<int>{};
    config.warmup = variant;
    config.all_api = !variant;
    auto parsed = parse_args(run_command_spec(), exp::run_arguments(config, "out dir/t.json.gz"));
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->value("--output"), "out dir/t.json.gz");
    auto back = run_config_from_args(*parsed);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->scenario, config.scenario);
    EXPECT_EQ(back->models, config.models);
    EXPECT_EQ(back->hidden, config.hidden);
    EXPECT_EQ(back->batch, config.batch);
    EXPECT_EQ(back->iters, config.iters);
    EXPECT_EQ(back->devices, config.devices);
    EXPECT_EQ(back->warmup, config.warmup);
    EXPECT_EQ(back->all_api, config.all_api);
  }
}

TEST(RunOptionsTest, StragglerIsARankAndMilliseconds) {
  EXPECT_EQ(parse_straggler("1=5").value(), (std::pair<int, std::int64_t>{1, 5000}));
  EXPECT_EQ(parse_straggler("0=0.2").value(), (std::pair<int, std::int64_t>{0, 200}));
  EXPECT_EQ(parse_straggler("3=20.125").value(), (std::pair<int, std::int64_t>{3, 20125}));
  for (const char* bad : {"1", "=5", "1=", "1=0", "1=-5", "x=5", "1=5ms", "1=0.0001", "1=5.", "-1=5"})
    EXPECT_EQ(parse_straggler(bad).error().message,
              std::string("option --straggler needs RANK=MS (a rank and a delay in milliseconds, e.g. 1=5 or 2=0.2), "
                          "got '") +
                  bad + "'")
        << bad;
  EXPECT_EQ(exp::straggler_text(1, 5000), "1=5");
  EXPECT_EQ(exp::straggler_text(2, 200), "2=0.2");
  EXPECT_EQ(exp::straggler_text(3, 20125), "3=20.125");
  exp::RunConfig config;
  config.scenario = "ddp";
  config.straggler_rank = 2;
  config.straggler_us = 250;
  auto parsed = parse_args(run_command_spec(), exp::run_arguments(config, "t.json.gz"));
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  auto back = run_config_from_args(*parsed);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->straggler_rank, 2);
  EXPECT_EQ(back->straggler_us, 250);
}

TEST(RunOptionsTest, UsageLineNamesTheProgram) {
  EXPECT_EQ(usage_line(run_command_spec()).rfind("usage: gtv-cli run SCENARIO [-o FILE]", 0), 0u);
  CommandSpec runner = run_command_spec();
  runner.program = "gtv-run";
  runner.name = "";
  EXPECT_EQ(usage_line(runner).rfind("usage: gtv-run SCENARIO [-o FILE]", 0), 0u);
}

}  // namespace
}  // namespace gtv::cli
