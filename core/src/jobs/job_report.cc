// Rank merge, MPI provenance and the phase JSON document: see job_report.h.
#include "jobs/job_report.h"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "jobs/mpi_session.h"
#include "jobs/mpi_util.h"
#include "util/build_info.h"

namespace deltameta {

JobPhase MergeRanks(const RankPhase& mine, MPI_Comm comm) {
  JobPhase job;
  MPI_Comm_size(comm, &job.ranks);
  // Four reductions, one after another: the sums of the counters and the latency
  // buckets, of the times, and two minimums that carry the maximums too (max x is
  // -min -x, and UINT64_MAX - min(UINT64_MAX - x) for unsigned x).
  const Histogram& h = mine.latency_ns;
  constexpr int kCounters = 5;
  std::array<uint64_t, kCounters + Histogram::kBuckets> counts{}, count_sums{};
  const PhaseCounters& c = mine.counters;
  counts[0] = c.ops, counts[1] = c.exists, counts[2] = c.missing, counts[3] = c.mismatched, counts[4] = c.failed;
  std::copy(h.buckets().begin(), h.buckets().end(), counts.begin() + kCounters);
  double times[2] = {mine.elapsed_s, mine.cpu_s}, time_sums[2] = {0, 0};
  double elapsed[2] = {mine.elapsed_s, -mine.elapsed_s}, elapsed_min[2] = {0, 0};
  uint64_t latency[2] = {h.count() ? h.min() : UINT64_MAX, UINT64_MAX - h.max()}, latency_min[2] = {0, 0};
  QuietReduce(counts.data(), count_sums.data(), static_cast<int>(counts.size()), MPI_UINT64_T, MPI_SUM, comm);
  QuietReduce(times, time_sums, 2, MPI_DOUBLE, MPI_SUM, comm);
  QuietReduce(elapsed, elapsed_min, 2, MPI_DOUBLE, MPI_MIN, comm);
  QuietReduce(latency, latency_min, 2, MPI_UINT64_T, MPI_MIN, comm);

  const uint64_t* sums = count_sums.data();
  job.counters = {sums[0], sums[1], sums[2], sums[3], sums[4]};
  job.elapsed_s = -elapsed_min[1];
  job.rank_min_s = elapsed_min[0];
  job.rank_sum_s = time_sums[0];
  job.client_cpu_s = time_sums[1];
  std::copy(count_sums.begin() + kCounters, count_sums.end(), job.latency_ns.buckets().begin());
  uint64_t total = 0;
  for (uint64_t b : job.latency_ns.buckets()) total += b;
  job.latency_ns.SetSummary(total, latency_min[0], UINT64_MAX - latency_min[1]);
  return job;
}

nlohmann::json LatencyJson(const Histogram& h) {
  auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
  return {{"min", us(h.min())},         {"q1", us(h.Quantile(0.25))},  {"median", us(h.Quantile(0.5))},
          {"q3", us(h.Quantile(0.75))}, {"q90", us(h.Quantile(0.90))}, {"q99", us(h.Quantile(0.99))},
          {"max", us(h.max())}};
}

nlohmann::json JobBuildInfoJson() {
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  std::string mpi_version(mpi, static_cast<size_t>(len));
  nlohmann::json build = BuildInfoJson();
  build["mpi"] = mpi_version.substr(0, mpi_version.find('\n'));
  return build;
}

nlohmann::json PhaseJson(const std::string& tool, const std::string& phase, const JobPhase& job,
                         const nlohmann::json& parameters, bool with_latency) {
  const double ops = static_cast<double>(job.counters.ops);
  const nlohmann::json latency = with_latency ? LatencyJson(job.latency_ns) : nlohmann::json(nullptr);
  return {
      {"schema", "deltameta.phase/1"},
      {"tool", tool},
      {"phase", phase},
      {"finished_at", IsoTimeNow()},
      {"finished_at_unix_s", UnixTimeNow()},
      {"parameters", parameters},
      {"ranks", job.ranks},
      {"ops", job.counters.ops},
      {"errors",
       {{"total", job.counters.errors()},
        {"exists", job.counters.exists},
        {"missing", job.counters.missing},
        {"mismatched", job.counters.mismatched},
        {"failed", job.counters.failed}}},
      {"elapsed_s", job.elapsed_s},
      {"throughput_mops", job.elapsed_s > 0 ? ops / job.elapsed_s / 1e6 : 0.0},
      {"micros_per_op", MicrosPerOp(job)},
      {"latency_us", latency},
      {"balance", {{"rank_min_s", job.rank_min_s}, {"rank_max_s", job.elapsed_s}}},
      {"cpu_s", {{"clients", job.client_cpu_s}, {"servers", job.server_cpu_s}}},
      {"build", JobBuildInfoJson()},
      {"host", HostInfoJson()},
      {"placement", PlacementJson()},
  };
}

}  // namespace deltameta
