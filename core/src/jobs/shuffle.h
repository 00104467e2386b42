// The parallel compactor's shuffle: every rank streams its entries to their owner ranks
// over MPI in bounded rounds (at most `batch_bytes` per peer per round), packing the next
// round while the current one is in flight. Waiting never spins (see mpi_util.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <mpi.h>

#include "compactor/entry_source.h"

namespace deltameta {

struct ShuffleStats {
  uint64_t entries_sent = 0;
  uint64_t entries_received = 0;
};

// Collective over `comm`: drains `source` and passes `sink` every round's entries that
// any rank routed to this one, as one buffer of whole entry records (entry_record.h),
// which the sink may keep. Keys and values must be shorter than 64 KiB.
void ShuffleEntries(MPI_Comm comm, size_t batch_bytes, EntrySource* source,
                    const std::function<void(std::string records)>& sink, ShuffleStats* stats);

}  // namespace deltameta
