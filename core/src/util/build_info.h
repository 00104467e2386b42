// Provenance of this binary and of the host it runs on, for result headers and JSON.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace deltameta {

// version, git revision, build type, compiler, and RocksDB / Snappy / Asio versions (snappy:
// null in a build without it). The tools add MPI's: JobBuildInfoJson (job_report.h).
nlohmann::json BuildInfoJson();
// The last line of every tool's --help: "Build: deltameta VERSION (GIT_REVISION), with:" and
// the optional parts built in (snappy, rados, cephfs; "none" when none), which the workflow's
// build rule reads to check an installed core (workflows/launch/build_core.py).
std::string BuildLine();
// hostname, kernel, CPU model and count, cache size, memory.
nlohmann::json HostInfoJson();
// The seed guide's opening lines: Date, CPU, CPUCache.
std::string HeaderPreamble();
// Current local time as ISO 8601 (whole seconds).
std::string IsoTimeNow();
// Current time as seconds since the Unix epoch, to the microsecond (a phase's end for the
// runner's readings around it, core/bench/mpijobs/sampler.py).
double UnixTimeNow();

}  // namespace deltameta
