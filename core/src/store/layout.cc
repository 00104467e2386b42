// Store layout marker: see layout.h. Format: "deltameta-store 1 <kind> <index> <count>\n".
#include "deltameta/layout.h"

#include <cstdint>
#include <sstream>

#include <rocksdb/env.h>

#include "store/rocksdb_status.h"

namespace deltameta {
namespace {

std::string RankStoreName(uint32_t rank) { return "r" + std::to_string(rank); }

}  // namespace

std::string StoreLayout::Describe() const {
  return std::string(kind == Kind::kPartition ? "partition " : "origin store ") + std::to_string(index) + " of " +
         std::to_string(count);
}

Status CheckLayout(const std::string& uri, const StoreLayout& found, const StoreLayout& expected) {
  if (found.kind == expected.kind && found.index == expected.index && found.count == expected.count)
    return Status::OK();
  if (expected.kind == StoreLayout::Kind::kPartition) {
    return Status::InvalidArgument(uri + " holds " + found.Describe() + " but this server is rank " +
                                   std::to_string(expected.index) + " of " + std::to_string(expected.count) +
                                   ": start as many server ranks as the store was written for");
  }
  return Status::InvalidArgument(uri + " holds " + found.Describe() + ", expected " + expected.Describe());
}

std::string RankStore(const std::string& root, uint32_t rank) { return root + "/" + RankStoreName(rank); }

StorageLocation RankStore(const StorageLocation& root, uint32_t rank) { return root.Child(RankStoreName(rank)); }

Status WriteLayout(const StorageLocation& dir, const StoreLayout& layout) {
  std::string text = "deltameta-store 1 " +
                     std::string(layout.kind == StoreLayout::Kind::kPartition ? "partition" : "origin") + " " +
                     std::to_string(layout.index) + " " + std::to_string(layout.count) + "\n";
  return FromRocksDb(rocksdb::WriteStringToFile(dir.env(), text, dir.Child(kLayoutFileName).path(), true))
      .WithContext("cannot write the layout marker in " + dir.uri());
}

Status ReadLayout(const StorageLocation& dir, StoreLayout* layout) {
  const StorageLocation marker = dir.Child(kLayoutFileName);
  const std::string& path = marker.uri();
  std::string text;
  rocksdb::Status s = rocksdb::ReadFileToString(dir.env(), marker.path(), &text);
  if (s.IsNotFound() || s.IsPathNotFound()) {
    return Status::NotFound(dir.uri() + " is not a deltameta store (no " + kLayoutFileName + ")");
  }
  if (!s.ok()) return FromRocksDb(s).WithContext("cannot read " + path);
  std::istringstream in(text);
  std::string magic, kind;
  int version = 0;
  long long index = -1, count = -1;
  std::string rest;
  in >> magic >> version >> kind >> index >> count;
  const bool complete = static_cast<bool>(in) && !(in >> rest);
  if (!complete || magic != "deltameta-store" || version != 1 || (kind != "partition" && kind != "origin") ||
      count < 1 || count > UINT32_MAX || index < 0 || index >= count) {
    return Status::Corruption(path + " is malformed: expected 'deltameta-store 1 <partition|origin> <index> <count>'");
  }
  layout->kind = kind == "partition" ? StoreLayout::Kind::kPartition : StoreLayout::Kind::kOrigin;
  layout->index = static_cast<uint32_t>(index);
  layout->count = static_cast<uint32_t>(count);
  return Status::OK();
}

}  // namespace deltameta
