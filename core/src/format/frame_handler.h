// What serves the requests of both server transports: the socket loops (rpc_server.h) and
// the shared-memory loops (shm_server.h) pass every valid request frame to a FrameHandler
// (the metadata service, metadata_service.h), so neither server needs the other's header.
#pragma once

#include <string>
#include <string_view>

#include "format/wire.h"

namespace deltameta {

class FrameHandler {
 public:
  virtual ~FrameHandler() = default;
  // Handles one request and sets *reply to one complete reply frame. Called concurrently
  // from the loop threads. Returns false if the body is malformed (connection dropped).
  virtual bool Handle(const FrameHeader& header, std::string_view body, std::string* reply) = 0;
};

}  // namespace deltameta
