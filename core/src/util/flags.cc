// Flag parsing: see flags.h.
#include "deltameta/flags.h"

#include <cerrno>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "util/build_info.h"

namespace deltameta {
namespace {

bool ParseInt(const std::string& s, int64_t* out) {
  // Digits with an optional minus sign: no spaces, no '+', no hex.
  if (s.empty() || s.find_first_not_of("-0123456789") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

std::string Describe(int64_t min, int64_t max) {
  if (max == INT64_MAX) return "an integer >= " + std::to_string(min);
  return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

}  // namespace

FlagSet::FlagSet(std::string tool, std::string summary) : tool_(std::move(tool)), summary_(std::move(summary)) {}

void FlagSet::Int(const char* name, int64_t* value, int64_t min, int64_t max, const char* help) {
  flags_.push_back({name, Kind::kInt, value, min, max, help, std::to_string(*value), "", false});
}

void FlagSet::Bool(const char* name, bool* value, const char* help) {
  flags_.push_back({name, Kind::kBool, value, 0, 1, help, *value ? "1" : "0", "", false});
}

void FlagSet::String(const char* name, std::string* value, const char* help) {
  flags_.push_back({name, Kind::kString, value, 0, 0, help, *value, "", false});
}

void FlagSet::Compat(const char* name, const char* help) {
  flags_.push_back({name, Kind::kCompat, nullptr, 0, 0, help, "", "", false});
}

FlagSet::Flag* FlagSet::Find(const std::string& name) {
  for (auto& f : flags_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Status FlagSet::Assign(Flag* f, const std::string& text) {
  const std::string flag = "--" + f->name;
  switch (f->kind) {
    case Kind::kInt: {
      int64_t v;
      if (!ParseInt(text, &v) || v < f->min || v > f->max) {
        return Status::InvalidArgument(flag + " expects " + Describe(f->min, f->max) + ", got '" + text + "'");
      }
      *static_cast<int64_t*>(f->value) = v;
      return Status::OK();
    }
    case Kind::kBool:
      if (text == "1" || text == "true") {
        *static_cast<bool*>(f->value) = true;
      } else if (text == "0" || text == "false") {
        *static_cast<bool*>(f->value) = false;
      } else {
        return Status::InvalidArgument(flag + " expects 0 or 1, got '" + text + "'");
      }
      return Status::OK();
    case Kind::kString:
      *static_cast<std::string*>(f->value) = text;
      return Status::OK();
    case Kind::kCompat:
      f->given = text;
      return Status::OK();
  }
  return Status::InvalidArgument(flag + " has no kind");
}

Status FlagSet::Parse(int argc, char** argv, bool* help) {
  *help = false;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      return Status::OK();
    }
    size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos || eq == 2) {
      return Status::InvalidArgument("malformed argument '" + arg + "': flags are written --name=value (see --help)");
    }
    Flag* f = Find(arg.substr(2, eq - 2));
    if (f == nullptr) {
      return Status::InvalidArgument("unknown flag '" + arg.substr(0, eq) + "' (see --help for the flags of " + tool_ +
                                     ")");
    }
    if (f->seen) return Status::InvalidArgument("flag --" + f->name + " given twice");
    f->seen = true;
    Status s = Assign(f, arg.substr(eq + 1));
    if (!s.ok()) return s;
  }
  return Status::OK();
}

std::string FlagSet::Usage() const {
  std::string u = "Usage: " + tool_ + " [--flag=value ...]\n" + summary_ + "\n\nFlags:\n";
  for (const auto& f : flags_) {
    std::string line = "  --" + f.name;
    if (f.kind != Kind::kCompat) line += "=" + (f.default_text.empty() ? "\"\"" : f.default_text);
    if (line.size() < 34) line.resize(34, ' ');
    u += line + " " + f.help + "\n";
  }
  u += "  --help                           print this text and exit\n\n" + BuildLine() + "\n";
  return u;
}

nlohmann::json FlagSet::Values() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& f : flags_) {
    switch (f.kind) {
      case Kind::kInt:
        j[f.name] = *static_cast<const int64_t*>(f.value);
        break;
      case Kind::kBool:
        j[f.name] = *static_cast<const bool*>(f.value);
        break;
      case Kind::kString:
        j[f.name] = *static_cast<const std::string*>(f.value);
        break;
      case Kind::kCompat:
        if (f.seen) j[f.name] = f.given;
        break;
    }
  }
  return j;
}

}  // namespace deltameta
