// What the MPI jobs add to a phase's results: the merge of every rank's results at phase
// end, the binary's provenance with its MPI library, and the phase's JSON document.
#pragma once

#include <string>

#include <mpi.h>
#include <nlohmann/json_fwd.hpp>

#include "util/phase_report.h"

namespace deltameta {

// Collective over `comm`.
JobPhase MergeRanks(const RankPhase& mine, MPI_Comm comm);

// {"min", "q1", "median", "q3", "q90", "q99", "max"} of `latency_ns`, in microseconds.
nlohmann::json LatencyJson(const Histogram& latency_ns);

// BuildInfoJson() plus the MPI library's version ("mpi").
nlohmann::json JobBuildInfoJson();

// The phase's JSON document (schema in core/doc/formats.md, "Result JSON").
nlohmann::json PhaseJson(const std::string& tool, const std::string& phase, const JobPhase& job,
                         const nlohmann::json& parameters, bool with_latency);

}  // namespace deltameta
