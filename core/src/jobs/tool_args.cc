// Shared tool start-up: see tool_args.h.
#include "jobs/tool_args.h"

#include <cstdio>

namespace deltameta {

int ParseToolArgs(const MpiSession& mpi, const char* tool, FlagSet* flags, int argc, char** argv,
                  const std::function<std::string()>& check, StoreOptions* options) {
  bool help = false;
  Status s = flags->Parse(argc, argv, &help);
  if (help) {
    if (mpi.rank() == 0) std::printf("%s", flags->Usage().c_str());
    return 0;
  }
  if (s.ok()) {
    const std::string problem = check();
    if (!problem.empty()) s = Status::InvalidArgument(problem);
  }
  if (s.ok()) s = options->LoadFromEnvironment();
  if (!s.ok()) {
    if (mpi.rank() == 0) PrintError(tool, s.ToString());
    return 2;
  }
  return -1;
}

}  // namespace deltameta
