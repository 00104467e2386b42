// The MD-Workbench tool's phase results: see mdw_report.h.
#include "mdworkbench/mdw_report.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "jobs/job_report.h"
#include "jobs/mpi_session.h"
#include "jobs/mpi_util.h"
#include "util/build_info.h"

namespace deltameta {
namespace {

constexpr OpType kAllTypes[kOpTypes] = {OpType::kCreate, OpType::kStat, OpType::kRead, OpType::kDelete};

void Add(Verification* into, const Verification& v) {
  into->failed += v.failed;
  into->missing += v.missing;
  into->mismatched += v.mismatched;
  into->wrong_bytes += v.wrong_bytes;
  into->deleted_still_found += v.deleted_still_found;
}

double Rate(uint64_t n, double seconds) { return seconds > 0 ? static_cast<double>(n) / seconds : 0.0; }

std::vector<MdwRankLine> GatherRankLines(const RankOps& mine, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double line[3] = {mine.elapsed_s, static_cast<double>(mine.ops()), static_cast<double>(mine.error_total())};
  std::vector<double> all(rank == 0 ? 3 * static_cast<size_t>(size) : 0);
  MPI_Request r;
  MPI_Igather(line, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, 0, comm, &r);
  QuietWait(&r);
  std::vector<MdwRankLine> lines;
  for (size_t i = 0; i + 2 < all.size(); i += 3) {
    lines.push_back(
        {static_cast<int>(i / 3), all[i], static_cast<uint64_t>(all[i + 1]), static_cast<uint64_t>(all[i + 2])});
  }
  return lines;
}

}  // namespace

uint64_t MdwPhaseResult::ops() const {
  uint64_t n = 0;
  for (const OpTypeStats& s : types) n += s.count;
  return n;
}

Verification MdwPhaseResult::Total() const {
  Verification v = checks;
  for (const OpTypeStats& s : types) Add(&v, s.errors);
  return v;
}

MdwPhaseResult MergeMdwRanks(const std::string& phase, const RankOps& mine, bool per_rank, MPI_Comm comm) {
  MdwPhaseResult r;
  r.phase = phase;
  // MergeRanks carries a count, three error counts, a histogram and the times; the
  // wrong-bytes counts and the checks' go in one more reduction.
  constexpr int kExtra = kOpTypes + 5;
  uint64_t extra[kExtra], extra_sums[kExtra] = {};
  for (OpType t : kAllTypes) {
    const OpTypeStats& s = mine.type(t);
    RankPhase rp;
    rp.counters.ops = s.count;
    rp.counters.missing = s.errors.missing;
    rp.counters.mismatched = s.errors.mismatched;
    rp.counters.failed = s.errors.failed;
    rp.latency_ns = s.latency_ns;
    rp.elapsed_s = mine.elapsed_s;
    rp.cpu_s = mine.cpu_s;
    const JobPhase job = MergeRanks(rp, comm);
    OpTypeStats& m = r.types[static_cast<int>(t)];
    m.count = job.counters.ops;
    m.errors.missing = job.counters.missing;
    m.errors.mismatched = job.counters.mismatched;
    m.errors.failed = job.counters.failed;
    m.latency_ns = job.latency_ns;
    r.ranks = job.ranks;
    r.elapsed_s = job.elapsed_s;
    r.rank_min_s = job.rank_min_s;
    r.client_cpu_s = job.client_cpu_s;
    extra[static_cast<int>(t)] = s.errors.wrong_bytes;
  }
  const Verification& c = mine.checks();
  extra[kOpTypes] = c.failed, extra[kOpTypes + 1] = c.missing, extra[kOpTypes + 2] = c.mismatched;
  extra[kOpTypes + 3] = c.wrong_bytes, extra[kOpTypes + 4] = c.deleted_still_found;
  QuietReduce(extra, extra_sums, kExtra, MPI_UINT64_T, MPI_SUM, comm);
  for (OpType t : kAllTypes) r.types[static_cast<int>(t)].errors.wrong_bytes = extra_sums[static_cast<int>(t)];
  r.checks = {extra_sums[kOpTypes], extra_sums[kOpTypes + 1], extra_sums[kOpTypes + 2], extra_sums[kOpTypes + 3],
              extra_sums[kOpTypes + 4]};
  if (per_rank) r.per_rank = GatherRankLines(mine, comm);
  return r;
}

nlohmann::json MdwPhaseJson(const MdwPhaseResult& r, const std::string& interface, const nlohmann::json& parameters,
                            const std::vector<std::string>& not_served, const std::string& reason) {
  nlohmann::json by_type = nlohmann::json::object();
  for (OpType t : kAllTypes) {
    const OpTypeStats& s = r.types[static_cast<int>(t)];
    if (s.count == 0) continue;
    by_type[OpTypeName(t)] = {
        {"count", s.count}, {"errors", s.errors.total()}, {"latency_us", LatencyJson(s.latency_ns)}};
  }
  const Verification v = r.Total();
  nlohmann::json doc = {
      {"schema", "deltameta.mdworkbench/1"},
      {"tool", "deltameta_mdworkbench"},
      {"interface", interface},
      {"phase", r.phase},
      {"finished_at", IsoTimeNow()},
      {"finished_at_unix_s", UnixTimeNow()},
      {"parameters", parameters},
      {"ranks", r.ranks},
      {"elapsed_s", r.elapsed_s},
      {"ops", r.ops()},
      {"objects", r.objects},
      {"op_rate", Rate(r.ops(), r.elapsed_s)},
      {"obj_rate", Rate(r.objects, r.elapsed_s)},
      {"balance", {{"rank_min_s", r.rank_min_s}, {"rank_max_s", r.elapsed_s}}},
      {"ops_by_type", by_type},
      {"verification",
       {{"expected_ops", r.expected_ops},
        {"failed", v.failed},
        {"missing", v.missing},
        {"mismatched", v.mismatched},
        {"wrong_bytes", v.wrong_bytes},
        {"deleted_still_found", v.deleted_still_found},
        {"total", v.total()}}},
  };
  if (!not_served.empty()) {
    doc["not_served"] = not_served;
    doc["not_served_reason"] = reason;
  }
  if (!r.per_rank.empty()) {
    nlohmann::json lines = nlohmann::json::array();
    for (const MdwRankLine& l : r.per_rank) {
      lines.push_back({{"rank", l.rank}, {"elapsed_s", l.elapsed_s}, {"ops", l.ops}, {"errors", l.errors}});
    }
    doc["per_rank"] = lines;
  }
  doc["cpu_s"] = {{"clients", r.client_cpu_s}, {"servers", r.server_cpu_s}};
  doc["build"] = JobBuildInfoJson();
  doc["host"] = HostInfoJson();
  doc["placement"] = PlacementJson();
  return doc;
}

std::string MdwPhaseText(const MdwPhaseResult& r, const std::vector<std::string>& not_served,
                         const std::string& reason) {
  char line[512];
  std::string out;
  const double balance = r.elapsed_s > 0 ? 100.0 * r.rank_min_s / r.elapsed_s : 100.0;
  const Verification v = r.Total();
  std::snprintf(line, sizeof(line), "%-10s %6s %10s %8s %12s %12s %12s %12s %8s\n", "phase", "ranks", "time_s",
                "balance", "op/s", "obj/s", "ops", "objects", "errors");
  out += line;
  std::snprintf(line, sizeof(line), "%-10s %6d %10.3f %7.1f%% %12.1f %12.1f %12llu %12llu %8llu\n", r.phase.c_str(),
                r.ranks, r.elapsed_s, balance, Rate(r.ops(), r.elapsed_s), Rate(r.objects, r.elapsed_s),
                static_cast<unsigned long long>(r.ops()), static_cast<unsigned long long>(r.objects),
                static_cast<unsigned long long>(v.total()));
  out += line;
  std::snprintf(line, sizeof(line), "  %-8s %10s %8s %10s %10s %10s %10s %10s %10s %10s\n", "op", "count", "errors",
                "min_us", "q1_us", "median_us", "q3_us", "q90_us", "q99_us", "max_us");
  out += line;
  for (OpType t : kAllTypes) {
    const OpTypeStats& s = r.types[static_cast<int>(t)];
    if (s.count == 0) continue;
    const Histogram& h = s.latency_ns;
    auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
    std::snprintf(line, sizeof(line), "  %-8s %10llu %8llu %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n",
                  OpTypeName(t), static_cast<unsigned long long>(s.count),
                  static_cast<unsigned long long>(s.errors.total()), us(h.min()), us(h.Quantile(0.25)),
                  us(h.Quantile(0.5)), us(h.Quantile(0.75)), us(h.Quantile(0.9)), us(h.Quantile(0.99)), us(h.max()));
    out += line;
  }
  if (!not_served.empty()) {
    std::string ops;
    for (const std::string& op : not_served) ops += (ops.empty() ? "" : ", ") + op;
    out += "  not served: " + ops + " (" + reason + ")\n";
  }
  for (const MdwRankLine& l : r.per_rank) {
    std::snprintf(line, sizeof(line), "  rank %-5d %10.3f s %12.1f op/s %12llu ops %8llu errors\n", l.rank, l.elapsed_s,
                  Rate(l.ops, l.elapsed_s), static_cast<unsigned long long>(l.ops),
                  static_cast<unsigned long long>(l.errors));
    out += line;
  }
  if (v.total() > 0) {
    std::snprintf(line, sizeof(line),
                  "  verification: %llu failed, %llu missing, %llu mismatched, %llu wrong bytes, %llu deleted but "
                  "still found\n",
                  static_cast<unsigned long long>(v.failed), static_cast<unsigned long long>(v.missing),
                  static_cast<unsigned long long>(v.mismatched), static_cast<unsigned long long>(v.wrong_bytes),
                  static_cast<unsigned long long>(v.deleted_still_found));
    out += line;
  }
  return out;
}

}  // namespace deltameta
