// The start every tool shares: parse its flags, check them, and read the store settings
// from the environment, with --help and bad input handled the same way everywhere.
#pragma once

#include <functional>
#include <string>

#include "deltameta/flags.h"
#include "deltameta/store_options.h"
#include "jobs/mpi_util.h"

namespace deltameta {

// Returns -1 if the tool should go on; otherwise the exit code: 0 after --help (usage
// printed), 2 for a bad flag, a failed `check` (its non-empty message) or a bad store
// setting (rank 0 prints the one-line error).
int ParseToolArgs(const MpiSession& mpi, const char* tool, FlagSet* flags, int argc, char** argv,
                  const std::function<std::string()>& check, StoreOptions* options);

}  // namespace deltameta
