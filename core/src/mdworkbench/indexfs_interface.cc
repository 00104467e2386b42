// The MD-Workbench tool's indexfs interface (interface.h): the IndexFS metadata servers
// (deltameta_server), every operation one RPC to the server owning the object's name, as
// deltameta_client's RPC backend does. An object's bytes travel with its create and are
// kept inline with its entry (wire.h's data create, read and delete); a stat is an lstat.
// A data set is a directory id, which needs no call.
//
// A server that is lost, refuses the data as over its inline limit, is read-only or
// disowns a name ends the run (kFatal) with a line naming the server and the fix; a store
// error on one operation is counted (kFailed).
#include <unistd.h>

#include "client/client_backend.h"
#include "client/client_flags.h"
#include "client/workload.h"
#include "deltameta/partition.h"
#include "mdworkbench/interface.h"

namespace deltameta {
namespace {

class IndexfsInterface : public MdwInterface {
 public:
  explicit IndexfsInterface(std::unique_ptr<ServerSet> servers) : servers_(std::move(servers)) {
    create_.stat.mode = kObjectMode;
    create_.stat.uid = static_cast<uint32_t>(getuid());
    create_.stat.gid = static_cast<uint32_t>(getgid());
  }

  const char* name() const override { return "indexfs"; }
  int64_t InlineDataMax() const override { return inline_data_max_; }

  Outcome Create(const ObjectId& id, std::string_view data, std::string* error) override {
    create_.dir_id = DataSetDirId(id.owner, id.set);
    create_.name = ObjectName(id);
    create_.stat.ino = create_.dir_id ^ (id.index << 20) ^ id.index;
    create_.stat.size = data.size();
    create_.stat.mtime_us = create_.stat.ctime_us = NowMicros();
    create_.data.assign(data.data(), data.size());
    RpcClient* s = ServerOf(create_.name);
    EncodeCreateData(create_, s->NextSeq(), &frame_);
    std::string_view body;
    CreateDataReply reply;
    if (!Call(s, MsgType::kCreateDataReply, &body, error)) return Outcome::kFatal;
    if (!DecodeCreateDataReply(body, &reply)) return Malformed(s, error);
    inline_data_max_ = reply.inline_data_max;
    if (reply.status == OpStatus::kTooLarge) {
      *error = "an object of " + std::to_string(data.size()) + " bytes is over the inline data limit of server " +
               s->address() + ", " + std::to_string(reply.inline_data_max) +
               " bytes: lower --object-size or raise deltameta_server --inline_data_max (at most " +
               std::to_string(kMaxInlineDataBytes) + ")";
      return Outcome::kFatal;
    }
    return Map(reply.status, s, "create", error);
  }

  Outcome Stat(const ObjectId& id, ObjectAttributes* attributes, std::string* error) override {
    lstat_.dir_id = DataSetDirId(id.owner, id.set);
    lstat_.name = ObjectName(id);
    RpcClient* s = ServerOf(lstat_.name);
    EncodeLstat(lstat_, s->NextSeq(), &frame_);
    std::string_view body;
    StatReply reply;
    if (!Call(s, MsgType::kStatReply, &body, error)) return Outcome::kFatal;
    if (!DecodeStatReply(body, &reply)) return Malformed(s, error);
    attributes->size = reply.stat.size;
    attributes->mode = reply.stat.mode;
    return Map(reply.status, s, "stat", error);
  }

  Outcome Read(const ObjectId& id, std::string* data, std::string* error) override {
    NameRequest req{DataSetDirId(id.owner, id.set), ObjectName(id)};
    RpcClient* s = ServerOf(req.name);
    EncodeReadData(req, s->NextSeq(), &frame_);
    std::string_view body;
    if (!Call(s, MsgType::kReadDataReply, &body, error)) return Outcome::kFatal;
    if (!DecodeReadDataReply(body, &read_)) return Malformed(s, error);
    data->swap(read_.data);
    return Map(read_.status, s, "read", error);
  }

  Outcome Delete(const ObjectId& id, std::string* error) override {
    NameRequest req{DataSetDirId(id.owner, id.set), ObjectName(id)};
    RpcClient* s = ServerOf(req.name);
    EncodeDelete(req, s->NextSeq(), &frame_);
    std::string_view body;
    OpStatus status;
    if (!Call(s, MsgType::kDeleteReply, &body, error)) return Outcome::kFatal;
    if (!DecodeDeleteReply(body, &status)) return Malformed(s, error);
    return Map(status, s, "delete", error);
  }

  bool ServerCpuSeconds(double* cpu_s, std::string* error) override {
    uint64_t entries;
    return servers_->QueryStats(false, cpu_s, &entries, error);
  }

 private:
  RpcClient* ServerOf(std::string_view name) { return servers_->server(PartitionOf(name, servers_->size())); }

  bool Call(RpcClient* s, MsgType reply_type, std::string_view* body, std::string* error) {
    return s->Call(frame_, reply_type, body, error);
  }

  static Outcome Malformed(RpcClient* s, std::string* error) {
    *error = "malformed reply from server " + s->address();
    return Outcome::kFatal;
  }

  static Outcome Map(OpStatus status, RpcClient* s, const char* op, std::string* error) {
    switch (status) {
      case OpStatus::kOk:
        return Outcome::kOk;
      case OpStatus::kNotFound:
        return Outcome::kNotFound;
      case OpStatus::kExists:
        return Outcome::kExists;
      case OpStatus::kIoError:
        *error = std::string("server ") + s->address() + " failed a " + op + ": store I/O error (its log says why)";
        return Outcome::kFailed;
      case OpStatus::kReadOnly:
        *error = std::string("server ") + s->address() + " is read-only (--use_existing_fs=1) and serves no " + op +
                 ": run the phase against writable servers";
        return Outcome::kFatal;
      default:
        *error = std::string("server ") + s->address() + " answered a " + op + " with '" + OpStatusName(status) +
                 "': are --info_svr_uri's servers one job of as many ranks as partitions?";
        return Outcome::kFatal;
    }
  }

  std::unique_ptr<ServerSet> servers_;
  CreateDataRequest create_;
  LstatRequest lstat_;
  ReadDataReply read_;
  std::string frame_;
  int64_t inline_data_max_ = -1;
};

}  // namespace

std::unique_ptr<MdwInterface> ConnectIndexfsInterface(const RpcSettings& rpc, std::string* error) {
  auto servers = ServerSet::Connect(rpc.info_uri, rpc.client_rank, rpc.timeout, ClientTransport(rpc.transport), error);
  if (!servers) return nullptr;
  return std::make_unique<IndexfsInterface>(std::move(servers));
}

}  // namespace deltameta
