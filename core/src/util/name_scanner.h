// Matching file names of a fixed shape ("MANIFEST-<digits>", "p<digits>-<digits>.sst") by
// reading them left to right: what store_tree.cc and ingest_check.cc recognise, without
// <regex>, whose templates cost each of them about 15 s of compile time.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>

namespace deltameta {

// A cursor over a name. Each step consumes what it matches and says whether it did; a
// step that fails leaves the cursor where it was, so alternatives can be tried in turn.
class NameScanner {
 public:
  explicit NameScanner(std::string_view name) : rest_(name) {}

  // The exact text `text`.
  bool Literal(std::string_view text) {
    if (rest_.substr(0, text.size()) != text) return false;
    rest_.remove_prefix(text.size());
    return true;
  }

  // At least `min` decimal digits, as many as there are; *digits gets them when given.
  bool Digits(size_t min = 1, std::string_view* digits = nullptr) {
    size_t n = 0;
    while (n < rest_.size() && rest_[n] >= '0' && rest_[n] <= '9') n++;
    if (n < min) return false;
    if (digits) *digits = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }

  // Whether the whole name has been read.
  bool AtEnd() const { return rest_.empty(); }

  // Whether what is left is exactly one of `texts` ("" for nothing).
  bool RestIs(std::initializer_list<std::string_view> texts) const {
    for (std::string_view text : texts) {
      if (rest_ == text) return true;
    }
    return false;
  }

 private:
  std::string_view rest_;
};

}  // namespace deltameta
