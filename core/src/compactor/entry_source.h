// What the compactor's shuffle (shuffle.h) drains: a stream of entries, each with the rank
// that owns it (OriginSource, origin_source.h, in the compactor).
#pragma once

#include <string_view>

namespace deltameta {

class EntrySource {
 public:
  virtual ~EntrySource() = default;
  virtual bool Valid() const = 0;
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual int owner() const = 0;
  virtual void Next() = 0;
};

}  // namespace deltameta
