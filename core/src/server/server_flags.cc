// The server job's command line: see server_flags.h.
#include "server/server_flags.h"

#include <cstdio>

#include "util/build_info.h"

namespace deltameta {

void RegisterServerFlags(FlagSet* f, ServerFlags* s) {
  f->String("db", &s->db, "store root; rank r uses <db>/r<r> (required)");
  f->Bool("use_existing_fs", &s->use_existing_fs,
          "serve existing stores read-only (DeltaFS read phase) instead of creating new ones");
  f->Bool("skip_fs_checks", &s->skip_fs_checks, "skip the existence check before each create");
  f->Int("ports_per_rank", &s->ports_per_rank, 1, 16, "listening ports per rank (clients spread over them)");
  f->Int("rpc_threads", &s->rpc_threads, 1, 64, "event-loop threads per rank");
  f->String("rpc_ip", &s->rpc_ip,
            "address the ranks listen on (the info endpoint too); host: each rank's host's own address, "
            "for ranks on several hosts");
  f->Int("info_port", &s->info_port, 0, 65535, "info endpoint port on rank 0 (0: any free port; see --ready_file)");
  f->String("ready_file", &s->ready_file,
            "when every rank listens, rank 0 writes the info URI to this file (removed at exit)");
  f->Bool("cpu_affinity", &s->cpu_affinity,
          "pin the shared-memory loop threads to this host's CPUs in turn (ranks, then loops), so that "
          "a client pinned to a CPU is served there (0: leave them to the scheduler)");
  f->Int("frame_timeout", &s->frame_timeout, 1, 3600,
         "seconds a request may take to arrive whole from its first byte, and a new connection to "
         "present the job's secret; a slower peer is disconnected");
  f->Int("idle_timeout", &s->idle_timeout, 0, 604800,
         "seconds a connection may go without a complete request before it is closed (a client holds "
         "its connections for its whole job; 0: never)");
  f->Int("conn_buffer_mb", &s->conn_buffer_mb, 1, 4096,
         "MiB of request bytes a rank buffers over all its connections beyond 1 KiB each; a "
         "connection whose frame would go over it is dropped");
  f->Int("wal_flush_ms", &s->wal_flush_ms, 0, 60000,
         "write the write-ahead log's buffer to its file at least this often, so a crash of the server "
         "loses at most this many milliseconds of acknowledged creates (0: only when the buffer fills)");
  f->Bool("wal_sync", &s->wal_sync,
          "sync every create to the device before acknowledging it (survives a machine crash; slow)");
  f->Int("inline_data_max", &s->inline_data_max, 0, kMaxInlineDataBytes,
         "largest object data (bytes) a data create may keep inline with its metadata; a larger one is "
         "refused with an error naming this limit (the default, the most: a value must fit an entry record)");
}

std::string CheckServerFlags(const ServerFlags& flags) {
  return flags.db.empty() ? "--db is required (the store root directory)" : "";
}

void ApplyServerFlags(const ServerFlags& flags, StoreOptions* options) {
  if (flags.use_existing_fs) options->disable_write_ahead_logging = true;
  options->checked_creates = !flags.use_existing_fs && !flags.skip_fs_checks;
  options->wal_flush_ms = flags.wal_flush_ms;
  options->wal_sync = flags.wal_sync;
  if (!flags.use_existing_fs) options->space_reserve = options->SpaceReserve();
}

void PrintServerHeader(const ServerFlags& f, const StoreOptions& o, int ranks) {
  std::printf("%s", HeaderPreamble().c_str());
  std::printf("rpc ip:             %s\n", f.rpc_ip.c_str());
  std::printf("rpc transport:      tcp\n");
  std::printf("Num rpc threads:    %lld\n", static_cast<long long>(f.rpc_threads));
  std::printf("Num ports per rank: %lld\n", static_cast<long long>(f.ports_per_rank));
  std::printf("Num ranks:          %d\n", ranks);
  std::printf("Fs use existing:    %d (readonly=%d)\n", f.use_existing_fs, f.use_existing_fs);
  std::printf("Fs info port:       %lld\n", static_cast<long long>(f.info_port));
  std::printf("Fs skip checks:     %d\n", f.skip_fs_checks);
  std::printf("CPU affinity:       %d\n", f.cpu_affinity);
  std::printf("WAL flush every:    %lld ms (sync=%d)\n", static_cast<long long>(f.wal_flush_ms), f.wal_sync);
  std::printf("Inline data max:    %lld bytes\n", static_cast<long long>(f.inline_data_max));
  std::printf("MAIN DB:\n%s", o.HeaderText().c_str());
  std::printf("Use existing db:    %d\n", f.use_existing_fs);
  std::printf("Db: %s/r<rank>\n", f.db.c_str());
  std::printf("------------------------------------------------\n");
  std::fflush(stdout);
}

bool WriteReadyFile(const std::string& path, const std::string& text, std::string* error) {
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0 ||
      std::rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot write --ready_file " + path;
    return false;
  }
  return true;
}

}  // namespace deltameta
