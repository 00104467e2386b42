// A command line for the code under test: argv[0] the tool's name, then the arguments, as
// main() gets them (the strings live as long as the object).
#pragma once

#include <string>
#include <vector>

class CommandLine {
 public:
  CommandLine(const std::string& tool, std::vector<std::string> args) : strings_(std::move(args)) {
    strings_.insert(strings_.begin(), tool);
    for (std::string& s : strings_) pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
  }
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  int argc() const { return static_cast<int>(strings_.size()); }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> pointers_;
};
