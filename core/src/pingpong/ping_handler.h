// What the ping-pong's servers (pingpong.h) answer: an lstat request gets a stat reply with
// its sequence number and a typical file's stat, as a metadata server's would, without
// decoding the request or touching a store. Anything else is refused.
#pragma once

#include <string>
#include <string_view>

#include "format/frame_handler.h"
#include "format/wire.h"

namespace deltameta {

class PingHandler : public FrameHandler {
 public:
  // Sets *reply to the answer to a request with `header`; false if it is not an lstat.
  static bool Answer(const FrameHeader& header, std::string* reply) {
    if (header.type != MsgType::kLstat) return false;
    StatReply r;
    r.stat.ino = header.seq;
    r.stat.mode = 0100644;
    r.stat.mtime_us = r.stat.ctime_us = 1700000000000000;
    EncodeStatReply(r, header.seq, reply);
    return true;
  }
  bool Handle(const FrameHeader& header, std::string_view body, std::string* reply) override {
    return Answer(header, reply);
  }
};

}  // namespace deltameta
