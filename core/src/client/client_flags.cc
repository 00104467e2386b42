// The client job's command line: see client_flags.h.
#include "client/client_flags.h"

#include <cstdio>
#include <string_view>

#include "util/build_info.h"

namespace deltameta {

void RegisterClientFlags(FlagSet* f, ClientFlags* c) {
  f->Int("n", &c->n, 1, int64_t{1} << 40, "files per rank");
  f->Bool("share_dir", &c->share_dir, "all ranks create in one shared directory (0: one directory per rank)");
  f->Bool("random_order", &c->random_order, "visit files in a seeded random order (0: ascending)");
  f->Int("write_phases", &c->write_phases, 0, 1, "run the create phase (0 or 1)");
  f->Int("read_phases", &c->read_phases, 0, 100, "number of lstat phases after the write phase");
  f->Bool("bk", &c->bk, "bulk insertion: write sorted tables under --db, servers ingest them at commit");
  f->String("db", &c->db, "with --bk: table directory; with --fs_use_local: the ranks' store root (<db>/r<rank>)");
  f->Bool("fs_use_local", &c->fs_use_local, "DeltaFS: each rank uses its own store under --db, no servers");
  f->Bool("cephfs", &c->cephfs,
          "CephFS through libcephfs (the cluster of CEPH_CONF), the production baseline: no servers of ours");
  f->String("cephfs_dir", &c->cephfs_dir,
            "with --cephfs: the run's directory in CephFS (without --share_dir, ranks use its r<rank>)");
  f->String("cephfs_name", &c->cephfs_name, "with --cephfs: the file system (empty: the cluster's default)");
  f->Bool("use_existing_fs", &c->use_existing_fs,
          "the namespace exists already (read an existing --fs_use_local store read-only)");
  f->String("info_svr_uri", &c->info_svr_uri, "the servers' info endpoint");
  f->String("rpc_transport", &c->rpc_transport,
            "auto: servers in this network namespace over shared memory, others TCP; "
            "unix: those over Unix sockets instead; tcp: always TCP");
  f->Bool("skip_fs_checks", &c->skip_fs_checks,
          "accepted for the seed guide's command lines (checks are the server's)");
  f->Int("rpc_timeout", &c->rpc_timeout, 1, 3600,
         "seconds to wait for a server (connect and each reply; --cephfs: the mount and each request to the MDS)");
  f->Bool("verify_total", &c->verify_total, "after the read phases, check the store holds exactly ranks x n entries");
  f->Bool("cpu_affinity", &c->cpu_affinity,
          "with servers: pin each rank to one CPU of its host (ranks in turn), where the servers' "
          "loop threads serve its shared-memory calls (0: leave placement to the scheduler)");
  f->String("json", &c->json, "write one JSON document per phase to this file (JSON Lines)");
}

std::string CheckClientFlags(const ClientFlags& f) {
  if (f.bk && f.fs_use_local) return "--bk=1 and --fs_use_local=1 exclude each other: pick one design";
  if (f.cephfs && (f.bk || f.fs_use_local)) return "--cephfs=1 excludes --bk=1 and --fs_use_local=1: pick one design";
  if (f.cephfs && (f.cephfs_dir.empty() || f.cephfs_dir[0] != '/' || f.cephfs_dir == "/"))
    return "--cephfs_dir must be an absolute path below / (e.g. /deltameta)";
  if ((f.bk || f.fs_use_local) && f.db.empty()) return "--db is required with --bk=1 or --fs_use_local=1";
  if (f.write_phases == 0 && f.read_phases == 0) return "nothing to do: --write_phases=0 and --read_phases=0";
  if (f.fs_use_local && f.write_phases == 0 && !f.use_existing_fs)
    return "--write_phases=0 with --fs_use_local=1 reads an existing store: add --use_existing_fs=1";
  if (f.bk && f.write_phases == 0) return "--bk=1 needs a write phase";
  if (f.rpc_transport != "auto" && f.rpc_transport != "unix" && f.rpc_transport != "tcp")
    return "--rpc_transport must be auto, unix or tcp";
  return "";
}

Transport ClientTransport(const std::string& rpc_transport) {
  Transport t = Transport::kShm;
  if (rpc_transport != "auto") ParseTransport(rpc_transport, &t);
  return t;
}

void PrintClientHeader(const ClientFlags& f, const StoreOptions& o, int ranks) {
  std::printf("%s", HeaderPreamble().c_str());
  std::printf("Num ranks:          %d\n", ranks);
  std::printf("Fs use existing:    %d (prepare_run=%s)\n", f.use_existing_fs, f.use_existing_fs ? "lstat" : "mkdir");
  std::printf("Fs use local:       %d\n", f.fs_use_local);
  std::printf("Fs infosvr locatio: %s\n", f.fs_use_local || f.cephfs ? "N/A" : f.info_svr_uri.c_str());
  if (f.cephfs) {
    std::printf("CephFS:             %s in %s\n", f.cephfs_name.empty() ? "(default)" : f.cephfs_name.c_str(),
                f.cephfs_dir.c_str());
  }
  std::printf("Fs skip checks:     %d\n", f.skip_fs_checks);
  if (f.fs_use_local) {
    std::printf("RPC timeout:        N/A\n");
  } else {
    std::printf("RPC timeout:        %lld s\n", static_cast<long long>(f.rpc_timeout));
  }
  std::printf("Creats:             %lld x %lld per rank (0 KB data per file)\n", static_cast<long long>(f.n),
              static_cast<long long>(f.write_phases));
  std::printf("Bulk in:            %s\n", f.bk ? "1" : "OFF");
  if (f.bk) std::printf("BK DB:\n%sDb: %s/r<rank>\n", o.HeaderText().c_str(), f.db.c_str());
  std::printf("Lstats:             %lld x %lld per rank\n", static_cast<long long>(f.n),
              static_cast<long long>(f.read_phases));
  std::printf("Random key order:   %d\n", f.random_order);
  std::printf("Share dir:          %d\n", f.share_dir);
  if (!f.fs_use_local && !f.cephfs) std::printf("CPU affinity:       %d\n", f.cpu_affinity);
  if (f.fs_use_local) std::printf("CLIENT DB:\n%sDb: %s/r<rank>\n", o.HeaderText().c_str(), f.db.c_str());
  std::printf("------------------------------------------------\n");
  std::fflush(stdout);
}

bool WantsStoreModes(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    const std::string_view arg = argv[i];
    for (std::string_view flag : {"--bk=", "--fs_use_local="}) {
      if (arg.substr(0, flag.size()) == flag && arg.substr(flag.size()) != "0") return true;
    }
  }
  return false;
}

}  // namespace deltameta
