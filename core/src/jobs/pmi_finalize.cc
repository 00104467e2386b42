// PMI-1 finalize: see pmi_finalize.h.
#include "jobs/pmi_finalize.h"

#include <unistd.h>

#include <cerrno>

namespace deltameta {
namespace {

bool WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool ReadLine(int fd, std::string* line) {
  line->clear();
  char c = 0;
  while (line->size() < 1024) {
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (c == '\n') return true;
    line->push_back(c);
  }
  return false;
}

}  // namespace

bool IsFinalizeAck(const std::string& reply) {
  // Hydra answers "cmd=finalize_ack"; Slurm's mpi/pmi2 plugin, which also serves PMI-1
  // clients such as this MPICH, adds a return code: "cmd=finalize_ack rc=0".
  const std::string ack = "cmd=finalize_ack";
  if (reply.compare(0, ack.size(), ack) != 0) return false;
  std::string rest = reply.substr(ack.size());
  if (rest.empty()) return true;
  if (rest[0] != ' ') return false;
  size_t rc = rest.find(" rc=");
  if (rc == std::string::npos) return true;
  size_t end = rest.find(' ', rc + 1);
  return rest.substr(rc + 4, end == std::string::npos ? std::string::npos : end - rc - 4) == "0";
}

bool PmiFinalize(int pmi_fd) {
  std::string reply;
  return WriteAll(pmi_fd, "cmd=finalize\n") && ReadLine(pmi_fd, &reply) && IsFinalizeAck(reply);
}

}  // namespace deltameta
