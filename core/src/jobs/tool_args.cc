// Shared tool start-up: see tool_args.h.
#include "jobs/tool_args.h"

#include <cstdio>

namespace deltameta {

int ParseToolArgs(const MpiSession& mpi, const char* tool, FlagSet* flags, int argc, char** argv,
                  const std::function<std::string()>& check, StoreOptions* options) {
  std::string error;
  FlagSet::Result r = flags->Parse(argc, argv, &error);
  if (r == FlagSet::Result::kHelp) {
    if (mpi.rank() == 0) std::printf("%s", flags->Usage().c_str());
    return 0;
  }
  if (r == FlagSet::Result::kOk) error = check();
  if (r == FlagSet::Result::kError || !error.empty() || !options->LoadFromEnvironment(&error)) {
    if (mpi.rank() == 0) PrintError(tool, error);
    return 2;
  }
  return -1;
}

}  // namespace deltameta
