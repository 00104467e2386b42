// MPI shuffle in bounded, pipelined rounds: see shuffle.h. A round is an all-to-all of
// per-peer (bytes, entries, exhausted) triples followed by an all-to-all-v of the entry
// records, received into one buffer that goes to the sink as it is.
#include "jobs/shuffle.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "format/entry_record.h"
#include "jobs/mpi_util.h"

namespace deltameta {
namespace {

// One round's outgoing records, packed in place: peer p's go to the region at displs[p].
// Pages of the regions are touched only as records fill them.
struct Outbox {
  Outbox(size_t peers, size_t region_bytes)
      : packed(new char[peers * region_bytes]), counts(3 * peers), byte_counts(peers), entries(peers), displs(peers) {
    for (size_t p = 0; p < peers; p++) displs[p] = static_cast<int>(p * region_bytes);
  }
  std::unique_ptr<char[]> packed;
  std::vector<int> counts;  // 3 per peer: bytes, entries, exhausted flag
  std::vector<int> byte_counts, entries, displs;
};

// Fills `box` from `source` until some peer's batch is full or the source is drained.
void Pack(EntrySource* source, size_t batch_bytes, Outbox* box, ShuffleStats* stats) {
  const size_t peers = box->byte_counts.size();
  std::fill(box->byte_counts.begin(), box->byte_counts.end(), 0);
  std::fill(box->entries.begin(), box->entries.end(), 0);
  while (source->Valid()) {
    const size_t peer = static_cast<size_t>(source->owner());
    const size_t used = static_cast<size_t>(box->byte_counts[peer]);
    std::string_view key = source->key(), value = source->value();
    if (used > 0 && used + EntryRecordBytes(key, value) > batch_bytes) break;
    box->byte_counts[peer] =
        static_cast<int>(used + WriteEntryRecord(box->packed.get() + box->displs[peer] + used, key, value));
    box->entries[peer]++;
    stats->entries_sent++;
    source->Next();
  }
  const int exhausted = source->Valid() ? 0 : 1;
  for (size_t p = 0; p < peers; p++) {
    box->counts[3 * p] = box->byte_counts[p];
    box->counts[3 * p + 1] = box->entries[p];
    box->counts[3 * p + 2] = exhausted;
  }
}

}  // namespace

void ShuffleEntries(MPI_Comm comm, size_t batch_bytes, EntrySource* source,
                    const std::function<void(std::string records)>& sink, ShuffleStats* stats) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const size_t peers = static_cast<size_t>(size);
  // A region holds a full batch, or one record larger than a batch.
  const size_t region = std::max(batch_bytes, kMaxEntryRecordBytes);
  Outbox boxes[2] = {Outbox(peers, region), Outbox(peers, region)};
  std::vector<int> in_counts(3 * peers), in_bytes(peers), in_displs(peers);

  int cur = 0;
  Pack(source, batch_bytes, &boxes[cur], stats);
  for (;;) {
    Outbox& box = boxes[cur];
    MPI_Request req;
    MPI_Ialltoall(box.counts.data(), 3, MPI_INT, in_counts.data(), 3, MPI_INT, comm, &req);
    QuietWait(&req);
    bool all_exhausted = true;
    size_t total = 0;
    for (size_t p = 0; p < peers; p++) {
      in_bytes[p] = in_counts[3 * p];
      in_displs[p] = static_cast<int>(total);
      total += static_cast<size_t>(in_bytes[p]);
      stats->entries_received += static_cast<uint64_t>(in_counts[3 * p + 1]);
      all_exhausted = all_exhausted && in_counts[3 * p + 2] == 1;
    }
    std::string inbox(total, '\0');
    MPI_Ialltoallv(box.packed.get(), box.byte_counts.data(), box.displs.data(), MPI_CHAR, &inbox[0], in_bytes.data(),
                   in_displs.data(), MPI_CHAR, comm, &req);
    // Pack the next round while this one travels.
    if (!all_exhausted) Pack(source, batch_bytes, &boxes[1 - cur], stats);
    QuietWait(&req);
    sink(std::move(inbox));
    if (all_exhausted) break;
    cur = 1 - cur;
  }
}

}  // namespace deltameta
