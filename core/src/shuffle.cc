// MPI shuffle in bounded, pipelined rounds: see shuffle.h. A round is an all-to-all of
// per-peer (bytes, exhausted) pairs followed by an all-to-all-v of the records
// [key length u16][key][value length u16][value].
#include "deltameta/shuffle.h"

#include <vector>

#include "deltameta/byte_order.h"
#include "deltameta/mpi_util.h"

namespace deltameta {
namespace {

struct Outbox {
  std::vector<std::string> per_peer;
  std::vector<int> counts;  // 2 per peer: bytes, exhausted flag
  std::string packed;
  std::vector<int> byte_counts, displs;
};

void AppendRecord(std::string* out, std::string_view key, std::string_view value) {
  char len[2];
  StoreLE<uint16_t>(len, static_cast<uint16_t>(key.size()));
  out->append(len, 2);
  out->append(key.data(), key.size());
  StoreLE<uint16_t>(len, static_cast<uint16_t>(value.size()));
  out->append(len, 2);
  out->append(value.data(), value.size());
}

// Fills `box` from `source` until some peer's batch is full or the source is drained.
void Pack(EntrySource* source, size_t batch_bytes, Outbox* box, ShuffleStats* stats) {
  const size_t peers = box->per_peer.size();
  for (auto& p : box->per_peer) p.clear();
  while (source->Valid()) {
    std::string& out = box->per_peer[static_cast<size_t>(source->owner())];
    const size_t record = 4 + source->key().size() + source->value().size();
    if (!out.empty() && out.size() + record > batch_bytes) break;
    AppendRecord(&out, source->key(), source->value());
    stats->entries_sent++;
    source->Next();
  }
  const int exhausted = source->Valid() ? 0 : 1;
  box->packed.clear();
  box->counts.assign(2 * peers, 0);
  box->byte_counts.assign(peers, 0);
  box->displs.assign(peers, 0);
  for (size_t p = 0; p < peers; p++) {
    box->displs[p] = static_cast<int>(box->packed.size());
    box->byte_counts[p] = static_cast<int>(box->per_peer[p].size());
    box->counts[2 * p] = box->byte_counts[p];
    box->counts[2 * p + 1] = exhausted;
    box->packed += box->per_peer[p];
  }
  stats->bytes_sent += box->packed.size();
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
  Outbox boxes[2];
  for (auto& b : boxes) b.per_peer.resize(peers);
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
    MPI_Ialltoallv(box.packed.data(), box.byte_counts.data(), box.displs.data(), MPI_CHAR, &inbox[0],
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
