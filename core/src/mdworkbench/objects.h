// The MD-Workbench pattern's objects, the same on every rank and every run with the same
// parameters: which data sets and objects exist, their names, their bytes and attributes,
// and which objects each phase handles. No I/O here.
//
// Rank r owns data sets (r, 0) .. (r, D-1). Precreate: r creates objects 0 .. P-1 in each
// of its data sets. Benchmark: at its k-th position (k counts over the iterations: i*I + f
// at position f < I of iteration i, unless a stonewall ended an earlier iteration sooner),
// for each data set d, r stats, reads and deletes object k of data set (t, d), where
// t = (r + O) mod N is the rank r works on (the rank offset), and creates object P + k there
// in its place, so the data set keeps P objects. Only r touches t's data sets during the
// benchmark (r -> t is a bijection), so no two ranks race on an object. Cleanup: r deletes
// what remains of its own data sets, objects K .. K + P - 1, where K is the positions the
// benchmark ran on them (R*I without a stonewall; 0 if no benchmark ran).
// An object's bytes are derived from (owner, data set, index) alone, so any rank can
// check any object it reads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace deltameta {

struct ObjectId {
  uint32_t owner = 0;  // the rank whose data set holds it
  uint32_t set = 0;    // the data set, < D
  uint64_t index = 0;  // the object, unique within its data set over the whole run
};

// A data set's directory (posix) or directory id (key-value interfaces).
std::string DataSetName(uint32_t owner, uint32_t set);  // "r<owner>.d<set>" (decimal)
uint64_t DataSetDirId(uint32_t owner, uint32_t set);    // unique per (owner, set), never 0
// "o<owner>.<set>.<index>" (hex): unique job-wide, so it also spreads over partitions.
std::string ObjectName(const ObjectId& id);

// Replaces *out with the `size` bytes of object `id`.
void ObjectBytes(const ObjectId& id, uint64_t size, std::string* out);
// True if `data` is exactly the bytes of object `id` of `size` bytes.
bool IsObjectBytes(const ObjectId& id, uint64_t size, std::string_view data);

// The attributes every object has: a regular file of the object size, read and write for
// its owner, read for others.
constexpr uint32_t kObjectMode = 0100644;

struct ObjectSpace {
  uint32_t ranks = 1;           // N
  uint32_t data_sets = 1;       // D, per rank
  uint64_t precreate = 1;       // P, per data set
  uint64_t per_iteration = 1;   // I, per data set and iteration
  uint64_t object_size = 3901;  // S
  uint64_t iterations = 1;      // R
  uint64_t offset = 1;          // O

  // The rank whose data sets rank `rank` works on in the benchmark.
  uint32_t TargetOf(uint32_t rank) const { return static_cast<uint32_t>((rank + offset) % ranks); }
  // The object the benchmark handles at its position `k` (over all iterations) in data set
  // `set` of `target`, and the one created in its place. With `replace` false (an interface
  // that cannot create or delete) the precreated objects are visited in turn instead: k mod P.
  ObjectId Handled(uint32_t target, uint32_t set, uint64_t k, bool replace) const;
  ObjectId Replacement(uint32_t target, uint32_t set, uint64_t k) const;
};

}  // namespace deltameta
