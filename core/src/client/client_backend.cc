// The RPC client side: the server set and the per-op RPC backend (client_backend.h).
#include "client/client_backend.h"

#include <algorithm>

#include "deltameta/partition.h"

namespace deltameta {
namespace {

class RpcBackend : public ClientBackend {
 public:
  explicit RpcBackend(ServerSet* servers) : servers_(servers) {}

  bool Create(uint64_t dir_id, std::string_view name, const FileStat& stat, OpStatus* status,
              std::string* error) override {
    create_.dir_id = dir_id;
    create_.name.assign(name.data(), name.size());
    create_.stat = stat;
    RpcClient* s = servers_->server(PartitionOf(name, servers_->size()));
    EncodeCreate(create_, s->NextSeq(), &frame_);
    return Finish(s, status, nullptr, error);
  }

  bool Lstat(uint64_t dir_id, std::string_view name, FileStat* stat, OpStatus* status, std::string* error) override {
    lstat_.dir_id = dir_id;
    lstat_.name.assign(name.data(), name.size());
    RpcClient* s = servers_->server(PartitionOf(name, servers_->size()));
    EncodeLstat(lstat_, s->NextSeq(), &frame_);
    return Finish(s, status, stat, error);
  }

  bool Commit(std::string*) override { return true; }

 private:
  bool Finish(RpcClient* s, OpStatus* status, FileStat* stat, std::string* error) {
    std::string_view body;
    if (!s->Call(frame_, MsgType::kStatReply, &body, error)) return false;
    if (!DecodeStatReply(body, &reply_)) {
      *error = "malformed reply from server " + s->address();
      return false;
    }
    *status = reply_.status;
    if (stat) *stat = reply_.stat;
    return true;
  }

  ServerSet* servers_;
  CreateRequest create_;
  LstatRequest lstat_;
  StatReply reply_;
  std::string frame_;
};

}  // namespace

std::unique_ptr<ServerSet> ServerSet::Connect(const std::string& info_uri, int client_rank,
                                              std::chrono::milliseconds timeout, Transport fastest,
                                              std::string* error) {
  // The info endpoint answers one call: a shared-memory channel would not pay for itself.
  auto info_conn = RpcClient::Connect(info_uri, timeout, std::max(fastest, Transport::kUnix), error);
  if (!info_conn) return nullptr;
  std::string frame;
  EncodeInfo(info_conn->NextSeq(), &frame);
  std::string_view body;
  InfoReply info;
  if (!info_conn->Call(frame, MsgType::kInfoReply, &body, error)) return nullptr;
  if (!DecodeInfoReply(body, &info)) {
    *error = "malformed info reply from " + info_uri;
    return nullptr;
  }
  auto set = std::unique_ptr<ServerSet>(new ServerSet());
  const size_t ranks = info.addresses.size() / info.ports_per_rank;
  for (size_t r = 0; r < ranks; r++) {
    const std::string& addr = info.addresses[r * info.ports_per_rank + client_rank % info.ports_per_rank];
    auto c = RpcClient::Connect(addr, timeout, fastest, error);
    if (!c) return nullptr;
    set->servers_.push_back(std::move(c));
  }
  return set;
}

std::vector<std::string> ServerSet::addresses() const {
  std::vector<std::string> out;
  for (const auto& s : servers_) out.push_back(s->address());
  return out;
}

std::string ServerSet::transport() const {
  for (const auto& s : servers_) {
    if (s->transport() != servers_[0]->transport()) return "mixed";
  }
  return servers_.empty() ? "none" : TransportName(servers_[0]->transport());
}

bool ServerSet::QueryStats(bool count_entries, double* cpu_s, uint64_t* entries, std::string* error) {
  *cpu_s = 0;
  *entries = 0;
  std::string frame;
  for (auto& s : servers_) {
    EncodeStats(StatsRequest{count_entries}, s->NextSeq(), &frame);
    std::string_view body;
    StatsReply reply;
    if (!s->Call(frame, MsgType::kStatsReply, &body, error)) return false;
    if (!DecodeStatsReply(body, &reply)) {
      *error = "malformed stats reply from server " + s->address();
      return false;
    }
    if (reply.status != OpStatus::kOk) {
      *error = "server " + s->address() + " cannot count its entries (" + OpStatusName(reply.status) +
               "): its store is damaged; its log names the file";
      return false;
    }
    *cpu_s += static_cast<double>(reply.cpu_micros) / 1e6;
    *entries += reply.entries;
  }
  return true;
}

std::unique_ptr<ClientBackend> NewRpcBackend(ServerSet* servers) { return std::make_unique<RpcBackend>(servers); }

}  // namespace deltameta
