// The MD-Workbench job (deltameta_mdworkbench): every MPI rank runs MD-Workbench's pattern
// (objects.h) through one interface (interface.h) in up to three phases, precreate,
// benchmark and cleanup (phases.h), each started together after a barrier, timed until
// the rank's last operation, checked, and merged into one result (mdw_report.h): text
// lines on rank 0's stdout (MD-Workbench's own, mdw_lines.h, and our table; --output) and
// one JSON document per phase appended to --json. The benchmark's iterations each start
// after a barrier and may end on MD-Workbench's stonewall (-w, -W; phases.h).
//
// Exit code: 0; 1 if a phase found any verification error (after its document and a
// one-line reason) or the run could not go on (a lost server: one line naming it); 2 for
// bad flags (0 after --help).
#pragma once

#include "jobs/mpi_session.h"

namespace deltameta {

int RunMdwJob(const MpiSession& mpi, int argc, char** argv);

}  // namespace deltameta
