// libFuzzer target of the wire decoders (wire.h, stat_codec.h). An input is a frame: its
// first 12 bytes go to ParseFrameHeader, the rest (the body) to every body decoder and to
// DecodeStat. Whatever a decoder accepts must be canonical: encoding the decoded message
// gives back exactly the input (with the length field set to the body's size). A crash,
// a sanitizer report or a round-trip mismatch aborts. Run by scripts/fuzz-wire.sh.
#include <cstdio>
#include <cstdlib>

#include "format/byte_order.h"
#include "wire_messages.h"

namespace deltameta::fuzz {
namespace {

void PrintHex(const char* what, std::string_view bytes) {
  std::fprintf(stderr, "  %s (%zu bytes):", what, bytes.size());
  for (size_t i = 0; i < bytes.size() && i < 96; i++) std::fprintf(stderr, " %02x", static_cast<uint8_t>(bytes[i]));
  std::fprintf(stderr, bytes.size() > 96 ? " ...\n" : "\n");
}

[[noreturn]] void Fail(const char* what, std::string_view input, std::string_view got = {}) {
  std::fprintf(stderr, "wire_fuzz: %s\n", what);
  PrintHex("input", input);
  if (!got.empty()) PrintHex("re-encoded", got);
  std::abort();
}

// The frame an encoder must write for `body`: the header built here, independently of wire.cc.
std::string ExpectedFrame(MsgType type, uint32_t seq, std::string_view body) {
  std::string f(kFrameHeaderBytes, '\0');
  f[0] = 'D';
  f[1] = 'M';
  f[2] = static_cast<char>(kWireVersion);
  f[3] = static_cast<char>(type);
  StoreLE<uint32_t>(&f[4], static_cast<uint32_t>(body.size()));
  StoreLE<uint32_t>(&f[8], seq);
  f.append(body);
  return f;
}

void CheckHeader(std::string_view input) {
  FrameHeader h;
  if (ParseFrameHeader(input.data(), &h) != HeaderError::kNone) return;
  if (static_cast<uint8_t>(h.type) != static_cast<uint8_t>(input[3]) ||
      h.body_bytes != LoadLE<uint32_t>(input.data() + 4) || h.seq != LoadLE<uint32_t>(input.data() + 8) ||
      h.body_bytes > kMaxFrameBodyBytes) {
    Fail("ParseFrameHeader accepted a header but reports other fields than it holds", input);
  }
  if (FindCodec(h.type) == nullptr) {
    Fail(
        "ParseFrameHeader accepts a message type that WireCodecs() lacks: add its line to "
        "core/tests/fuzz/wire_messages.h",
        input.substr(0, kFrameHeaderBytes));
  }
}

}  // namespace
}  // namespace deltameta::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace deltameta;
  using namespace deltameta::fuzz;
  if (size < kFrameHeaderBytes) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::string_view body = input.substr(kFrameHeaderBytes);
  const uint32_t seq = LoadLE<uint32_t>(input.data() + 8);
  CheckHeader(input);
  std::string frame;
  for (const WireCodec& c : WireCodecs()) {
    if (!c.reencode(body, seq, &frame)) continue;
    FrameHeader h;
    if (frame != ExpectedFrame(c.type, seq, body) || ParseFrameHeader(frame.data(), &h) != HeaderError::kNone) {
      const std::string what = std::string("Decode") + c.name +
                               " accepted a body that does not re-encode to itself (fix the decoder to reject "
                               "it, or the encoder to keep what the decoder read)";
      Fail(what.c_str(), input, frame);
    }
  }
  FileStat stat;
  if (DecodeStat(body, &stat)) {
    std::string again;
    AppendStat(&again, stat);
    if (again != body) Fail("DecodeStat accepted a stat that does not re-encode to itself", input, again);
  }
  return 0;
}
