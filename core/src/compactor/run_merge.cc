// The merge of sorted runs: see run_merge.h.
#include "compactor/run_merge.h"

#include <queue>
#include <string>

namespace deltameta {

rocksdb::Status MergeRuns(const std::vector<RunReader*>& runs, const RecordSink& out, uint64_t* duplicates) {
  // The run with the smallest current key on top; of equal keys, the earliest run.
  auto later = [&runs](size_t a, size_t b) {
    const int c = runs[a]->key().compare(runs[b]->key());
    return c != 0 ? c > 0 : a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heads(later);
  for (size_t i = 0; i < runs.size(); i++) {
    if (runs[i]->Next()) heads.push(i);
    if (!runs[i]->status().ok()) return runs[i]->status();
  }
  std::string last;
  bool any = false;
  while (!heads.empty()) {
    const size_t i = heads.top();
    heads.pop();
    RunReader* run = runs[i];
    if (any && run->key() == last) {
      (*duplicates)++;
    } else {
      rocksdb::Status s = out(run->key(), run->value());
      if (!s.ok()) return s;
      last.assign(run->key().data(), run->key().size());
      any = true;
    }
    if (run->Next()) heads.push(i);
    if (!run->status().ok()) return run->status();
  }
  return rocksdb::Status::OK();
}

}  // namespace deltameta
