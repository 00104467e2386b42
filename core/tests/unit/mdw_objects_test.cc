// Tests objects.h's object bytes: the same for the same object, different for any other
// object, and any changed byte (in a later block or the short last word too), a missing or
// an extra byte fails the check.
#include <string>

#include <gtest/gtest.h>

#include "mdworkbench/objects.h"

namespace deltameta {
namespace {

TEST(MdwObjectsTest, BytesAreTheObjectsAlone) {
  for (uint64_t size : {0, 1, 7, 8, 3901, 4096, 10000}) {
    std::string a, again;
    ObjectBytes(ObjectId{1, 2, 3}, size, &a);
    ObjectBytes(ObjectId{1, 2, 3}, size, &again);
    EXPECT_EQ(a.size(), size);
    EXPECT_EQ(a, again);
    EXPECT_TRUE(IsObjectBytes(ObjectId{1, 2, 3}, size, a));
    if (size == 0) continue;
    for (const ObjectId& other : {ObjectId{0, 2, 3}, ObjectId{1, 3, 3}, ObjectId{1, 2, 4}}) {
      EXPECT_FALSE(IsObjectBytes(other, size, a)) << size;
    }
  }
}

TEST(MdwObjectsTest, EveryWordDiffersBetweenObjects) {
  std::string a, b;
  ObjectBytes(ObjectId{0, 0, 0}, 10000, &a);
  ObjectBytes(ObjectId{0, 0, 1}, 10000, &b);
  for (size_t at = 0; at + 8 <= a.size(); at += 8) EXPECT_NE(a.substr(at, 8), b.substr(at, 8)) << at;
}

TEST(MdwObjectsTest, AnyChangedMissingOrExtraByteFails) {
  const ObjectId id{3, 1, 7};
  std::string bytes;
  ObjectBytes(id, 10000, &bytes);
  for (size_t at : {size_t{0}, size_t{4095}, size_t{4096}, size_t{9992}, size_t{9999}}) {
    std::string changed = bytes;
    changed[at] = static_cast<char>(changed[at] ^ 1);
    EXPECT_FALSE(IsObjectBytes(id, 10000, changed)) << at;
  }
  EXPECT_FALSE(IsObjectBytes(id, 10000, bytes.substr(0, 9999)));
  EXPECT_FALSE(IsObjectBytes(id, 10000, bytes + "x"));
}

}  // namespace
}  // namespace deltameta
