// Rank merge, MPI provenance and the phase JSON document: see job_report.h.
#include "deltameta/job_report.h"

#include <array>

#include "deltameta/build_info.h"
#include "deltameta/mpi_util.h"

namespace deltameta {

JobPhase MergeRanks(const RankPhase& mine, MPI_Comm comm) {
  JobPhase job;
  MPI_Comm_size(comm, &job.ranks);
  uint64_t counts[5] = {mine.counters.ops, mine.counters.exists, mine.counters.missing,
                        mine.counters.mismatched, mine.counters.failed};
  uint64_t count_sums[5] = {0};
  double sums[2] = {mine.elapsed_s, mine.cpu_s}, sum_out[2] = {0};
  Histogram h = mine.latency_ns;
  uint64_t summary_min = h.count() ? h.min() : UINT64_MAX, summary_max = h.max();
  uint64_t merged_min = 0, merged_max = 0;
  double rank_max = 0, rank_min = 0;

  MPI_Request r[7];
  MPI_Ireduce(counts, count_sums, 5, MPI_UINT64_T, MPI_SUM, 0, comm, &r[0]);
  MPI_Ireduce(sums, sum_out, 2, MPI_DOUBLE, MPI_SUM, 0, comm, &r[1]);
  MPI_Ireduce(&mine.elapsed_s, &rank_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm, &r[2]);
  MPI_Ireduce(&mine.elapsed_s, &rank_min, 1, MPI_DOUBLE, MPI_MIN, 0, comm, &r[3]);
  std::array<uint64_t, Histogram::kBuckets> merged{};
  MPI_Ireduce(h.buckets().data(), merged.data(), Histogram::kBuckets, MPI_UINT64_T, MPI_SUM, 0, comm, &r[4]);
  MPI_Ireduce(&summary_min, &merged_min, 1, MPI_UINT64_T, MPI_MIN, 0, comm, &r[5]);
  MPI_Ireduce(&summary_max, &merged_max, 1, MPI_UINT64_T, MPI_MAX, 0, comm, &r[6]);
  for (auto& req : r) QuietWait(&req);

  job.counters = {count_sums[0], count_sums[1], count_sums[2], count_sums[3], count_sums[4]};
  job.elapsed_s = rank_max;
  job.rank_min_s = rank_min;
  job.rank_sum_s = sum_out[0];
  job.client_cpu_s = sum_out[1];
  job.latency_ns.buckets() = merged;
  uint64_t total = 0;
  for (uint64_t b : merged) total += b;
  job.latency_ns.SetSummary(total, merged_min, merged_max);
  return job;
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
  nlohmann::json latency = nullptr;
  if (with_latency) {
    const Histogram& h = job.latency_ns;
    auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
    latency = {{"min", us(h.min())},           {"q1", us(h.Quantile(0.25))},  {"median", us(h.Quantile(0.5))},
               {"q3", us(h.Quantile(0.75))},   {"q90", us(h.Quantile(0.90))}, {"q99", us(h.Quantile(0.99))},
               {"max", us(h.max())}};
  }
  return {
      {"schema", "deltameta.phase/1"},
      {"tool", tool},
      {"phase", phase},
      {"finished_at", IsoTimeNow()},
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
  };
}

}  // namespace deltameta
