// The process's Ceph connection and per-pool Envs: see rados_cluster.h.
#include "rados/rados_cluster.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "rados/rados_api.h"
#include "rados/rados_fs.h"

namespace deltameta {
namespace {

// Reads a positive integer from the environment; `fallback` if unset. Returns false if
// set but malformed or out of [min, max].
bool EnvNumber(const char* name, long long fallback, long long min, long long max, long long* value,
               std::string* error) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') {
    *value = fallback;
    return true;
  }
  char* end = nullptr;
  errno = 0;
  *value = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || *value < min || *value > max) {
    *error = std::string(name) + "=" + text + " is invalid: expected a whole number from " + std::to_string(min) +
             " to " + std::to_string(max);
    return false;
  }
  return true;
}

struct PoolEnv {
  rados_ioctx_t io = nullptr;
  std::unique_ptr<rocksdb::Env> env;
};

// Everything below lives until the process exits: RocksDB may use an Env until then.
struct Connection {
  std::mutex mu;
  rados_t cluster = nullptr;
  std::string failure;  // why connecting failed, once it has
  uint64_t chunk = kDefaultRadosChunkBytes;
  uint64_t cache = kDefaultRadosCacheBytes;
  std::map<std::string, PoolEnv> pools;
};

Connection& TheConnection() {
  static Connection* c = new Connection();
  return *c;
}

// Ends a process that loaded librados at exit, before exit's teardown: librados's threads
// (messenger, timers, a call that timed out) run until the process ends, and the teardown
// (static destructors, library finalizers) raced with them: `deltameta_storage rm` printed
// its line, then aborted on "std::out_of_range: map::at" (Ceph's config schema destroyed
// under a thread still reading it; about 1 run in 300 beside two CPU hogs) or, after a
// timeout, "boost::bad_get". Registered after librados is loaded, it runs before librados's
// own teardown: output flushed, the exit status kept, nothing torn down. Every call this
// process made has finished by then (each waits for its completion).
void EndWithoutTeardown(int status, void*) {
  std::fflush(nullptr);
  _exit(status);
}

bool Connect(Connection* c, std::string* error) {
  long long timeout = 0, chunk = 0, cache = 0;
  if (!EnvNumber("DELTAMETA_RADOS_TIMEOUT", 30, 1, 3600, &timeout, error) ||
      !EnvNumber("DELTAMETA_RADOS_CHUNK_BYTES", kDefaultRadosChunkBytes, 4096, 64 << 20, &chunk, error) ||
      !EnvNumber("DELTAMETA_RADOS_CACHE_BYTES", kDefaultRadosCacheBytes, 0, 1LL << 40, &cache, error)) {
    return false;
  }
  c->chunk = static_cast<uint64_t>(chunk);
  c->cache = static_cast<uint64_t>(cache);
  const char* id = std::getenv("DELTAMETA_RADOS_ID");
  const char* conf = std::getenv("DELTAMETA_RADOS_CONF");
  if (conf == nullptr || *conf == '\0') conf = std::getenv("CEPH_CONF");
  if (conf != nullptr && *conf == '\0') conf = nullptr;
  const std::string conf_name = conf ? conf : "Ceph's default config (/etc/ceph/ceph.conf)";
  if (LoadLibrados(error) == nullptr) return false;
  on_exit(EndWithoutTeardown, nullptr);  // once: a failed Connect is not tried again
  int r = Librados().rados_create(&c->cluster, id && *id ? id : "admin");
  if (r < 0) {
    *error = std::string("cannot create a RADOS client: ") + std::strerror(-r);
    return false;
  }
  r = Librados().rados_conf_read_file(c->cluster, conf);
  if (r < 0) {
    *error = "cannot read " + conf_name + ": " + std::strerror(-r) +
             ": set CEPH_CONF to the cluster's config (scripts/ceph-cluster.sh start prints it)";
    return false;
  }
  Librados().rados_conf_parse_env(c->cluster, nullptr);
  const std::string seconds = std::to_string(timeout);
  for (const char* key : {"client_mount_timeout", "rados_mon_op_timeout", "rados_osd_op_timeout"}) {
    Librados().rados_conf_set(c->cluster, key, seconds.c_str());
  }
  Librados().rados_conf_set(c->cluster, "log_to_stderr", "false");
  Librados().rados_conf_set(c->cluster, "err_to_stderr", "false");
  r = Librados().rados_connect(c->cluster);
  if (r < 0) {
    *error = "cannot reach the Ceph cluster of " + conf_name + " within " + seconds + " s (" + std::strerror(-r) +
             "): is it running? (scripts/ceph-cluster.sh start DIR, then use the CEPH_CONF it prints)";
    return false;
  }
  return true;
}

}  // namespace

rocksdb::Env* RadosEnv(const std::string& pool, std::string* error) {
  Connection& c = TheConnection();
  std::lock_guard<std::mutex> lock(c.mu);
  auto found = c.pools.find(pool);
  if (found != c.pools.end()) return found->second.env.get();
  if (!c.failure.empty()) {
    *error = c.failure;
    return nullptr;
  }
  if (c.cluster == nullptr && !Connect(&c, &c.failure)) {
    if (c.cluster != nullptr) Librados().rados_shutdown(c.cluster);
    c.cluster = nullptr;
    *error = c.failure;
    return nullptr;
  }
  PoolEnv p;
  const int r = Librados().rados_ioctx_create(c.cluster, pool.c_str(), &p.io);
  if (r < 0) {
    *error = r == -ENOENT ? "RADOS pool '" + pool + "' does not exist: create it (ceph osd pool create " + pool + ")"
                          : "cannot open RADOS pool '" + pool + "': " + std::strerror(-r);
    return nullptr;
  }
  p.env = rocksdb::NewCompositeEnv(NewRadosFileSystem(p.io, pool, c.chunk, c.cache));
  return c.pools.emplace(pool, std::move(p)).first->second.env.get();
}

}  // namespace deltameta
