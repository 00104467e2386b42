// Writes the fuzz target's seed corpus: one file per sample frame of wire_messages.h,
// after checking that every message type ParseFrameHeader accepts has a codec and a
// sample there, and that every sample round-trips.
//   deltameta_wire_seeds DIR
#include <cstdio>
#include <fstream>
#include <map>

#include "wire_messages.h"

namespace {

int Die(const std::string& why) {
  std::fprintf(stderr, "wire_seeds: %s\n", why.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace deltameta;
  using namespace deltameta::fuzz;
  if (argc != 2) return Die("usage: deltameta_wire_seeds DIR (an existing directory)");
  const std::string dir = argv[1];
  const std::string fix = ": add it to WireCodecs() and SampleFrames() in core/tests/fuzz/wire_messages.h";

  std::map<int, int> samples_of_type;
  for (const std::string& frame : SampleFrames()) {
    FrameHeader h;
    const WireCodec* codec = ParseFrameHeader(frame.data(), &h) == HeaderError::kNone ? FindCodec(h.type) : nullptr;
    std::string again;
    if (codec == nullptr) return Die("a sample frame has a type without a codec" + fix);
    if (!codec->reencode(std::string_view(frame).substr(kFrameHeaderBytes), h.seq, &again) || again != frame) {
      return Die(std::string("a sample ") + codec->name + " frame does not round-trip: check its Decode/Encode");
    }
    const int n = samples_of_type[static_cast<int>(h.type)]++;
    const std::string path = dir + "/" + codec->name + "-" + std::to_string(n);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!(out << frame) || !out.flush()) return Die("cannot write " + path + ": does the directory exist?");
  }

  for (int t = 0; t < 256; t++) {
    char header[kFrameHeaderBytes] = {'D', 'M', static_cast<char>(kWireVersion), static_cast<char>(t)};
    FrameHeader h;
    const bool known = ParseFrameHeader(header, &h) == HeaderError::kNone;
    const bool has_codec = FindCodec(static_cast<MsgType>(t)) != nullptr;
    char type[8];
    std::snprintf(type, sizeof type, "0x%02x", t);
    if (known && !has_codec) return Die(std::string("message type ") + type + " has no codec" + fix);
    if (known && samples_of_type[t] == 0) return Die(std::string("message type ") + type + " has no sample" + fix);
    if (!known && has_codec)
      return Die(std::string("WireCodecs() lists type ") + type + ", which ParseFrameHeader rejects");
  }
  std::printf("wire_seeds: wrote %zu seed frames of %zu message types to %s\n", SampleFrames().size(),
              samples_of_type.size(), dir.c_str());
  return 0;
}
