// Store layout marker: see layout.h. Format: "deltameta-store 1 <kind> <index> <count>\n".
#include "deltameta/layout.h"

#include <cstdint>
#include <sstream>

#include <rocksdb/env.h>

namespace deltameta {
namespace {

std::string RankStoreName(uint32_t rank) { return "r" + std::to_string(rank); }

}  // namespace

std::string StoreLayout::Describe() const {
  return std::string(kind == Kind::kPartition ? "partition " : "origin store ") + std::to_string(index) + " of " +
         std::to_string(count);
}

bool CheckLayout(const std::string& uri, const StoreLayout& found, const StoreLayout& expected, std::string* error) {
  if (found.kind == expected.kind && found.index == expected.index && found.count == expected.count) return true;
  if (expected.kind == StoreLayout::Kind::kPartition) {
    *error = uri + " holds " + found.Describe() + " but this server is rank " + std::to_string(expected.index) +
             " of " + std::to_string(expected.count) + ": start as many server ranks as the store was written for";
  } else {
    *error = uri + " holds " + found.Describe() + ", expected " + expected.Describe();
  }
  return false;
}

std::string RankStore(const std::string& root, uint32_t rank) { return root + "/" + RankStoreName(rank); }

StorageLocation RankStore(const StorageLocation& root, uint32_t rank) { return root.Child(RankStoreName(rank)); }

bool WriteLayout(const StorageLocation& dir, const StoreLayout& layout, std::string* error) {
  std::string text = "deltameta-store 1 " +
                     std::string(layout.kind == StoreLayout::Kind::kPartition ? "partition" : "origin") + " " +
                     std::to_string(layout.index) + " " + std::to_string(layout.count) + "\n";
  rocksdb::Status s = rocksdb::WriteStringToFile(dir.env(), text, dir.Child(kLayoutFileName).path(), true);
  if (!s.ok()) *error = "cannot write the layout marker in " + dir.uri() + ": " + s.ToString();
  return s.ok();
}

bool ReadLayout(const StorageLocation& dir, StoreLayout* layout, std::string* error) {
  const StorageLocation marker = dir.Child(kLayoutFileName);
  const std::string& path = marker.uri();
  std::string text;
  rocksdb::Status s = rocksdb::ReadFileToString(dir.env(), marker.path(), &text);
  if (s.IsNotFound() || s.IsPathNotFound()) {
    *error = dir.uri() + " is not a deltameta store (no " + kLayoutFileName + ")";
    return false;
  }
  if (!s.ok()) {
    *error = "cannot read " + path + ": " + s.ToString();
    return false;
  }
  std::istringstream in(text);
  std::string magic, kind;
  int version = 0;
  long long index = -1, count = -1;
  std::string rest;
  in >> magic >> version >> kind >> index >> count;
  const bool complete = static_cast<bool>(in) && !(in >> rest);
  if (!complete || magic != "deltameta-store" || version != 1 || (kind != "partition" && kind != "origin") ||
      count < 1 || count > UINT32_MAX || index < 0 || index >= count) {
    *error = path + " is malformed: expected 'deltameta-store 1 <partition|origin> <index> <count>'";
    return false;
  }
  layout->kind = kind == "partition" ? StoreLayout::Kind::kPartition : StoreLayout::Kind::kOrigin;
  layout->index = static_cast<uint32_t>(index);
  layout->count = static_cast<uint32_t>(count);
  return true;
}

}  // namespace deltameta
