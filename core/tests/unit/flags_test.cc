// Tests flags.h: --name=value parsing, --help (its last line the build's), error messages naming
// the flag, and Values().
#include "deltameta/flags.h"

#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace deltameta {
namespace {

// One flag of each kind; every Parse uses a freshly registered FlagSet over the same values.
class FlagsTest : public ::testing::Test {
 protected:
  FlagsTest() { Register(); }

  void Register() {
    flags_ = std::make_unique<FlagSet>("deltameta_test", "A test tool.");
    flags_->Int("num", &num_, -5, 100, "an int");
    flags_->Bool("on", &on_, "a bool");
    flags_->String("dir", &dir_, "a string");
    flags_->Compat("old", "accepted and ignored");
  }

  Status Parse(std::initializer_list<const char*> args) {
    Register();
    std::vector<std::string> storage = {"deltameta_test"};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : storage) argv.push_back(s.data());
    return flags_->Parse(static_cast<int>(argv.size()), argv.data(), &help_);
  }

  // Parses the arguments, expects an error, and returns its message.
  std::string ErrorOf(std::initializer_list<const char*> args) {
    const Status s = Parse(args);
    EXPECT_TRUE(s.IsInvalidArgument());
    EXPECT_FALSE(help_);
    EXPECT_FALSE(s.ToString().empty());
    return s.ToString();
  }

  std::unique_ptr<FlagSet> flags_;
  int64_t num_ = 7;
  bool on_ = false;
  std::string dir_ = "/tmp/default";
  bool help_ = false;
};

TEST_F(FlagsTest, ParsesEveryKind) {
  ASSERT_TRUE(Parse({"--num=-5", "--on=true", "--dir=/a=b", "--old=x"}).ok());
  EXPECT_EQ(num_, -5);
  EXPECT_TRUE(on_);
  EXPECT_EQ(dir_, "/a=b");
}

TEST_F(FlagsTest, KeepsDefaultsOfFlagsNotGiven) {
  ASSERT_TRUE(Parse({"--num=100"}).ok());
  EXPECT_EQ(num_, 100);
  EXPECT_FALSE(on_);
  EXPECT_EQ(dir_, "/tmp/default");
}

TEST_F(FlagsTest, BoolSpellings) {
  const std::pair<const char*, bool> spellings[] = {
      {"--on=1", true}, {"--on=true", true}, {"--on=0", false}, {"--on=false", false}};
  for (const auto& [arg, want] : spellings) {
    on_ = !want;
    ASSERT_TRUE(Parse({arg}).ok()) << arg;
    EXPECT_FALSE(help_);
    EXPECT_EQ(on_, want) << arg;
  }
}

TEST_F(FlagsTest, Help) {
  std::string usage = flags_->Usage();
  for (const char* text : {"deltameta_test", "A test tool.", "--num=7", "--on=0", "--dir=/tmp/default", "--old"}) {
    EXPECT_NE(usage.find(text), std::string::npos) << text;
  }
  // The last line names the build and the optional parts it has, for the workflow's build rule.
  const size_t at = usage.rfind("\n\nBuild: deltameta ");
  ASSERT_NE(at, std::string::npos) << usage;
  const std::string build = usage.substr(at + 2);
  EXPECT_EQ(build.back(), '\n');
  EXPECT_EQ(build.find('\n'), build.size() - 1) << build;
  const std::string with = build.substr(build.find("), with:") + 8);
#ifdef DELTAMETA_WITH_RADOS
  EXPECT_NE(with.find(" rados"), std::string::npos) << build;
#else
  EXPECT_EQ(with.find(" rados"), std::string::npos) << build;
#endif
#ifdef DELTAMETA_WITH_CEPHFS
  EXPECT_NE(with.find(" cephfs"), std::string::npos) << build;
#else
  EXPECT_EQ(with.find(" cephfs"), std::string::npos) << build;
#endif
  EXPECT_TRUE(Parse({"--help"}).ok());
  EXPECT_TRUE(help_);
  EXPECT_TRUE(Parse({"--num=1", "-h"}).ok());
  EXPECT_TRUE(help_);
  EXPECT_TRUE(Parse({"--num=1"}).ok());
  EXPECT_FALSE(help_);
}

TEST_F(FlagsTest, UnknownFlag) { EXPECT_NE(ErrorOf({"--nmu=1"}).find("--nmu"), std::string::npos); }

TEST_F(FlagsTest, MalformedArguments) {
  for (const char* arg : {"--num", "num=1", "-num=1", "--=1", "num"}) {
    EXPECT_NE(ErrorOf({arg}).find(arg), std::string::npos) << arg;
  }
}

TEST_F(FlagsTest, BadIntValues) {
  for (const char* arg :
       {"--num=101", "--num=-6", "--num=abc", "--num=12x", "--num=", "--num=1.5", "--num=99999999999999999999"}) {
    std::string error = ErrorOf({arg});
    EXPECT_NE(error.find("--num"), std::string::npos) << arg << ": " << error;
  }
  EXPECT_EQ(num_, 7);
}

TEST_F(FlagsTest, BadBoolValues) {
  for (const char* arg : {"--on=yes", "--on=2", "--on=", "--on=TRUE"}) {
    EXPECT_NE(ErrorOf({arg}).find("--on"), std::string::npos) << arg;
  }
}

TEST_F(FlagsTest, DuplicateFlag) {
  EXPECT_NE(ErrorOf({"--num=1", "--num=2"}).find("--num"), std::string::npos);
  EXPECT_NE(ErrorOf({"--old=1", "--old=1"}).find("--old"), std::string::npos);
}

TEST_F(FlagsTest, ValuesAsJson) {
  EXPECT_EQ(flags_->Values(), nlohmann::json({{"num", 7}, {"on", false}, {"dir", "/tmp/default"}}));
  ASSERT_TRUE(Parse({"--num=42", "--on=1", "--dir=", "--old=v"}).ok());
  EXPECT_EQ(flags_->Values(), nlohmann::json({{"num", 42}, {"on", true}, {"dir", ""}, {"old", "v"}}));
}

}  // namespace
}  // namespace deltameta
