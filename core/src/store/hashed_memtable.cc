// The memtable of stores read while they are written: see hashed_memtable.h.
//
// Each entry is a Node (the same user key's previous entry, its key's hash) followed by
// RocksDB's entry. An open-addressing table of atomic pointers holds each user key's
// newest Node; older ones hang from it, newest first. The one writer publishes a Node with
// a release store, so a reader that finds it sees the entry whole. Tables are at most half
// full; a full one is copied into one twice its size, and the old one is kept until the
// memtable goes, since readers may still be probing it (a frozen table, whose keys are all
// in the new one too). Readers that started before an insert may miss it, which RocksDB
// allows: the sequence number that makes an entry visible is published after its insert.
#include "store/hashed_memtable.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

#include <rocksdb/slice.h>

#include "store/sorted_entries.h"

namespace deltameta {
namespace {

using rocksdb::MemTableRep;
using rocksdb::Slice;

constexpr size_t kInternalKeyTrailer = 8;  // sequence number and type after the user key
constexpr size_t kFirstSlots = 1024;

struct Node {
  std::atomic<Node*> older{nullptr};
  uint64_t hash = 0;
  const char* entry() const { return reinterpret_cast<const char*>(this + 1); }
};

struct Table {
  explicit Table(size_t slot_count) : mask(slot_count - 1), slots(new std::atomic<Node*>[slot_count]) {
    for (size_t i = 0; i < slot_count; ++i) slots[i].store(nullptr, std::memory_order_relaxed);
  }
  size_t mask;  // slot count - 1, a power of two minus one
  std::unique_ptr<std::atomic<Node*>[]> slots;
};

size_t SlotsFor(size_t keys) {
  size_t slots = kFirstSlots;
  while (slots < 2 * keys + 2) slots *= 2;
  return slots;
}

class HashedRep : public MemTableRep {
 public:
  HashedRep(const KeyComparator& compare, rocksdb::Allocator* allocator, bool has_prefix_extractor,
            std::shared_ptr<std::atomic<size_t>> last_keys)
      : MemTableRep(allocator),
        compare_(compare),
        has_prefix_extractor_(has_prefix_extractor),
        last_keys_(std::move(last_keys)),
        iterators_(compare) {
    tables_.push_back(std::make_unique<Table>(SlotsFor(last_keys_->load(std::memory_order_relaxed))));
    table_.store(tables_.back().get(), std::memory_order_release);
    table_bytes_.store((tables_.back()->mask + 1) * sizeof(std::atomic<Node*>), std::memory_order_relaxed);
  }

  // The entry's memory with its Node in front of it, which the base class's allocation (the
  // arena's unaligned one) leaves to align: its pointer is read while written.
  rocksdb::KeyHandle Allocate(const size_t len, char** buf) override {
    char* memory = nullptr;
    MemTableRep::Allocate(alignof(Node) - 1 + sizeof(Node) + len, &memory);
    void* place = memory;
    size_t room = alignof(Node) - 1 + sizeof(Node) + len;
    Node* node = new (std::align(alignof(Node), sizeof(Node), place, room)) Node;
    *buf = reinterpret_cast<char*>(node + 1);
    return node;
  }

  void Insert(rocksdb::KeyHandle handle) override {
    Node* node = static_cast<Node*>(handle);
    std::string_view key = KeyOf(node->entry());
    node->hash = Hash(key);
    Table* table = table_.load(std::memory_order_relaxed);  // only this writer changes it
    for (size_t i = node->hash & table->mask;; i = (i + 1) & table->mask) {
      Node* newest = table->slots[i].load(std::memory_order_relaxed);
      if (newest == nullptr) {
        table->slots[i].store(node, std::memory_order_release);
        if (++keys_ * 2 > table->mask + 1) Grow();
        return;
      }
      if (newest->hash == node->hash && KeyOf(newest->entry()) == key) {
        Link(&table->slots[i], newest, node);
        return;
      }
    }
  }

  bool Contains(const char* entry) const override {
    for (Node* n = Find(KeyOf(entry)); n != nullptr; n = n->older.load(std::memory_order_acquire)) {
      if (compare_(n->entry(), entry) == 0) return true;
    }
    return false;
  }

  // What RocksDB's Get reads: the key's entries, found through the table (a store with a
  // prefix extractor seeks its iterators with this method too: those get GetIterator's).
  MemTableRep::Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override {
    if (arena != nullptr || has_prefix_extractor_) return GetIterator(arena);
    return KeyEntriesIterator::ForThisThread(compare_, [this](std::string_view key, MemTableEntries* entries) {
      for (Node* n = Find(key); n != nullptr; n = n->older.load(std::memory_order_acquire))
        entries->push_back(n->entry());
    });
  }

  void MarkReadOnly() override { read_only_.store(true, std::memory_order_release); }

  size_t ApproximateMemoryUsage() override { return sizeof(*this) + table_bytes_.load(std::memory_order_relaxed); }

  // Sorted once read only (its flush); while written, a sorted copy of what is published.
  MemTableRep::Iterator* GetIterator(rocksdb::Arena* arena) override {
    return iterators_.New(arena, read_only_.load(std::memory_order_acquire), [this] { return Entries(); });
  }

 private:
  static uint64_t Hash(std::string_view key) { return std::hash<std::string_view>()(key); }

  std::string_view KeyOf(const char* entry) const {
    Slice internal_key = compare_.decode_key(entry);
    return std::string_view(internal_key.data(), internal_key.size() - kInternalKeyTrailer);
  }

  // The newest entry of `key`, or null.
  Node* Find(std::string_view key) const {
    const uint64_t hash = Hash(key);
    const Table* table = table_.load(std::memory_order_acquire);
    for (size_t i = hash & table->mask;; i = (i + 1) & table->mask) {
      Node* newest = table->slots[i].load(std::memory_order_acquire);
      if (newest == nullptr) return nullptr;
      if (newest->hash == hash && KeyOf(newest->entry()) == key) return newest;
    }
  }

  // `node` into its key's entries, newest first: in front (its usual place: a store writes
  // a key's entries in sequence order), or after the newer ones.
  void Link(std::atomic<Node*>* slot, Node* newest, Node* node) {
    if (compare_(node->entry(), newest->entry()) < 0) {
      node->older.store(newest, std::memory_order_relaxed);
      slot->store(node, std::memory_order_release);
      return;
    }
    Node* before = newest;
    for (Node* next = before->older.load(std::memory_order_relaxed);
         next != nullptr && compare_(next->entry(), node->entry()) < 0;
         next = before->older.load(std::memory_order_relaxed)) {
      before = next;
    }
    node->older.store(before->older.load(std::memory_order_relaxed), std::memory_order_relaxed);
    before->older.store(node, std::memory_order_release);
  }

  // The writer's: every key's newest entry into a table twice the size, then published.
  void Grow() {
    const Table* old = table_.load(std::memory_order_relaxed);
    auto grown = std::make_unique<Table>(2 * (old->mask + 1));
    for (size_t i = 0; i <= old->mask; ++i) {
      Node* newest = old->slots[i].load(std::memory_order_relaxed);
      if (newest == nullptr) continue;
      size_t j = newest->hash & grown->mask;
      while (grown->slots[j].load(std::memory_order_relaxed) != nullptr) j = (j + 1) & grown->mask;
      grown->slots[j].store(newest, std::memory_order_relaxed);
    }
    table_bytes_.fetch_add((grown->mask + 1) * sizeof(std::atomic<Node*>), std::memory_order_relaxed);
    table_.store(grown.get(), std::memory_order_release);
    tables_.push_back(std::move(grown));
    last_keys_->store(keys_, std::memory_order_relaxed);  // the next memtable starts this large
  }

  // Every entry published so far.
  MemTableEntries Entries() const {
    MemTableEntries entries;
    const Table* table = table_.load(std::memory_order_acquire);
    for (size_t i = 0; i <= table->mask; ++i) {
      for (Node* n = table->slots[i].load(std::memory_order_acquire); n != nullptr;
           n = n->older.load(std::memory_order_acquire)) {
        entries.push_back(n->entry());
      }
    }
    return entries;
  }

  const KeyComparator& compare_;
  const bool has_prefix_extractor_;
  std::shared_ptr<std::atomic<size_t>> last_keys_;
  std::atomic<Table*> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;  // the writer's: the current one last
  size_t keys_ = 0;                             // the writer's
  std::atomic<size_t> table_bytes_{0};
  std::atomic<bool> read_only_{false};
  SortedEntriesIterators iterators_;
};

}  // namespace

rocksdb::MemTableRep* HashedMemTableFactory::CreateMemTableRep(const rocksdb::MemTableRep::KeyComparator& compare,
                                                               rocksdb::Allocator* allocator,
                                                               const rocksdb::SliceTransform* prefix,
                                                               rocksdb::Logger* /*logger*/) {
  return new HashedRep(compare, allocator, prefix != nullptr, last_keys_);
}

}  // namespace deltameta
