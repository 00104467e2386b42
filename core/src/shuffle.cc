// MPI shuffle in bounded, pipelined rounds: see shuffle.h. A round is an all-to-all of
// per-peer (bytes, exhausted) pairs followed by an all-to-all-v of the records
// [key length u16][key][value length u16][value].
#include "deltameta/shuffle.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "deltameta/byte_order.h"
#include "deltameta/mpi_util.h"

namespace deltameta {
namespace {

// The largest record: keys and values are shorter than 64 KiB.
constexpr size_t kMaxRecordBytes = 4 + 2 * 0xffff;

// One round's outgoing records, packed in place: peer p's go to the region at displs[p].
// Pages of the regions are touched only as records fill them.
struct Outbox {
  Outbox(size_t peers, size_t region_bytes)
      : packed(new char[peers * region_bytes]), counts(2 * peers), byte_counts(peers), displs(peers) {
    for (size_t p = 0; p < peers; p++) displs[p] = static_cast<int>(p * region_bytes);
  }
  std::unique_ptr<char[]> packed;
  std::vector<int> counts;  // 2 per peer: bytes, exhausted flag
  std::vector<int> byte_counts, displs;
};

// Fills `box` from `source` until some peer's batch is full or the source is drained.
void Pack(EntrySource* source, size_t batch_bytes, Outbox* box, ShuffleStats* stats) {
  const size_t peers = box->byte_counts.size();
  std::fill(box->byte_counts.begin(), box->byte_counts.end(), 0);
  while (source->Valid()) {
    const size_t peer = static_cast<size_t>(source->owner());
    const size_t used = static_cast<size_t>(box->byte_counts[peer]);
    std::string_view key = source->key(), value = source->value();
    const size_t record = 4 + key.size() + value.size();
    if (used > 0 && used + record > batch_bytes) break;
    char* out = box->packed.get() + box->displs[peer] + used;
    StoreLE<uint16_t>(out, static_cast<uint16_t>(key.size()));
    std::memcpy(out + 2, key.data(), key.size());
    StoreLE<uint16_t>(out + 2 + key.size(), static_cast<uint16_t>(value.size()));
    std::memcpy(out + 4 + key.size(), value.data(), value.size());
    box->byte_counts[peer] = static_cast<int>(used + record);
    stats->entries_sent++;
    source->Next();
  }
  const int exhausted = source->Valid() ? 0 : 1;
  for (size_t p = 0; p < peers; p++) {
    box->counts[2 * p] = box->byte_counts[p];
    box->counts[2 * p + 1] = exhausted;
    stats->bytes_sent += static_cast<uint64_t>(box->byte_counts[p]);
  }
}

void Unpack(const std::string& in, const std::function<void(std::string_view, std::string_view)>& sink,
            ShuffleStats* stats) {
  size_t pos = 0;
  while (pos < in.size()) {
    uint16_t klen = LoadLE<uint16_t>(in.data() + pos);
    std::string_view key(in.data() + pos + 2, klen);
    pos += 2 + klen;
    uint16_t vlen = LoadLE<uint16_t>(in.data() + pos);
    std::string_view value(in.data() + pos + 2, vlen);
    pos += 2 + vlen;
    sink(key, value);
    stats->entries_received++;
  }
}

}  // namespace

void ShuffleEntries(MPI_Comm comm, size_t batch_bytes, EntrySource* source,
                    const std::function<void(std::string_view, std::string_view)>& sink, ShuffleStats* stats) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const size_t peers = static_cast<size_t>(size);
  // A region holds a full batch, or one record larger than a batch.
  const size_t region = std::max(batch_bytes, kMaxRecordBytes);
  Outbox boxes[2] = {Outbox(peers, region), Outbox(peers, region)};
  std::vector<int> in_counts(2 * peers), in_bytes(peers), in_displs(peers);
  std::string inbox;

  int cur = 0;
  Pack(source, batch_bytes, &boxes[cur], stats);
  for (;;) {
    Outbox& box = boxes[cur];
    MPI_Request req;
    MPI_Ialltoall(box.counts.data(), 2, MPI_INT, in_counts.data(), 2, MPI_INT, comm, &req);
    QuietWait(&req);
    bool all_exhausted = true;
    size_t total = 0;
    for (size_t p = 0; p < peers; p++) {
      in_bytes[p] = in_counts[2 * p];
      in_displs[p] = static_cast<int>(total);
      total += static_cast<size_t>(in_bytes[p]);
      all_exhausted = all_exhausted && in_counts[2 * p + 1] == 1;
    }
    inbox.resize(total);
    MPI_Ialltoallv(box.packed.get(), box.byte_counts.data(), box.displs.data(), MPI_CHAR, &inbox[0],
                   in_bytes.data(), in_displs.data(), MPI_CHAR, comm, &req);
    // Pack the next round while this one travels.
    if (!all_exhausted) Pack(source, batch_bytes, &boxes[1 - cur], stats);
    QuietWait(&req);
    stats->rounds++;
    Unpack(inbox, sink, stats);
    if (all_exhausted) break;
    cur = 1 - cur;
  }
}

}  // namespace deltameta
