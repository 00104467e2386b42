// Command-line flags in the seed guide's form: --name=value (booleans as 0/1 or true/false).
// Every tool registers its flags with a FlagSet, which parses argv, rejects unknown or
// malformed flags with a one-line message, and prints --help.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "deltameta/status.h"

namespace deltameta {

class FlagSet {
 public:
  FlagSet(std::string tool, std::string summary);

  void Int(const char* name, int64_t* value, int64_t min, int64_t max, const char* help);
  void Bool(const char* name, bool* value, const char* help);
  void String(const char* name, std::string* value, const char* help);
  // A flag of the seed guide that this tool accepts and ignores (reason in `help`).
  void Compat(const char* name, const char* help);

  // Sets *help if --help or -h is given (what follows it is not read); otherwise a failure
  // names the flag and what is wrong with it.
  Status Parse(int argc, char** argv, bool* help);

  std::string Usage() const;
  // Every flag's current value, for result provenance (compat flags only if given).
  nlohmann::json Values() const;

 private:
  enum class Kind { kInt, kBool, kString, kCompat };
  struct Flag {
    std::string name;
    Kind kind;
    void* value;
    int64_t min, max;
    std::string help;
    std::string default_text;
    std::string given;  // raw text of a given compat flag
    bool seen = false;
  };
  Flag* Find(const std::string& name);
  Status Assign(Flag* f, const std::string& text);

  std::string tool_, summary_;
  std::vector<Flag> flags_;
};

}  // namespace deltameta
