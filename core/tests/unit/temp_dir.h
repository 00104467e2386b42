// A fresh directory under /tmp for one test, removed with everything in it when the test ends.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "deltameta/storage.h"

class TempDir {
 public:
  TempDir() {
    std::string name = "/tmp/deltameta-unit-XXXXXX";
    if (mkdtemp(name.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = name;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  deltameta::StorageLocation location() const {
    deltameta::StorageLocation where;
    const deltameta::Status s = deltameta::StorageLocation::Resolve(path_, &where);
    if (!s.ok()) ADD_FAILURE() << s.ToString();
    return where;
  }

 private:
  std::string path_;
};
