// MD-Workbench's own result lines: see mdw_lines.h.
#include "mdworkbench/mdw_lines.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "jobs/mpi_util.h"

namespace deltameta {
namespace {

// The order MD-Workbench prints the latency groups in.
constexpr OpType kLineOrder[kOpTypes] = {OpType::kRead, OpType::kStat, OpType::kCreate, OpType::kDelete};
constexpr int kFixed = 2 + 2 * kOpTypes + 2;  // elapsed, max op, counts, errors, data sets, other errors

void Append(std::string* out, const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  *out += buffer;
}

int Index(OpType t) { return static_cast<int>(t); }

// The sorted latencies' quantile q as MD-Workbench picks it (q a float there, as here).
double Quantile(const std::vector<float>& sorted, float q) {
  const size_t n = sorted.size();
  const auto at = static_cast<size_t>(std::round(static_cast<double>(q * static_cast<float>(n)) + 0.49));
  return sorted[std::min(at, n - 1)];
}

void AppendLatencies(std::string* out, OpType t, std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double median = n % 2 == 0 ? (v[n / 2] + v[n / 2 - 1]) / 2.0 : v[n / 2];
  if (v.back() <= 1e-9) return;  // MD-Workbench leaves out a group whose slowest took no time
  Append(out, " %s(%.4es, %.4es, %.4es, %.4es, %.4es, %.4es, %.4es)", OpTypeName(t), static_cast<double>(v[0]),
         Quantile(v, 0.25f), median, Quantile(v, 0.75f), Quantile(v, 0.90f), Quantile(v, 0.99f),
         static_cast<double>(v.back()));
}

}  // namespace

uint64_t MdwLinePart::ok(OpType t) const { return count[Index(t)] - errors[Index(t)]; }

uint64_t MdwLinePart::error_total() const {
  uint64_t n = other_errors;
  for (uint64_t e : errors) n += e;
  return n;
}

MdwMark MarkOf(const RankOps& ops) {
  MdwMark m;
  for (int t = 0; t < kOpTypes; t++) {
    m.count[t] = ops.type(static_cast<OpType>(t)).count;
    m.errors[t] = ops.type(static_cast<OpType>(t)).errors.total();
  }
  m.checks = ops.checks().total();
  m.data_sets = ops.data_sets;
  m.records = ops.records().size();
  return m;
}

MdwLinePart PartSince(const RankOps& ops, const MdwMark& from, double elapsed_s) {
  const MdwMark now = MarkOf(ops);
  MdwLinePart p;
  p.elapsed_s = elapsed_s;
  for (int t = 0; t < kOpTypes; t++) {
    p.count[t] = now.count[t] - from.count[t];
    p.errors[t] = now.errors[t] - from.errors[t];
  }
  p.data_sets = now.data_sets - from.data_sets;
  p.other_errors = now.checks - from.checks;
  for (size_t i = from.records; i < now.records; i++) {
    const RankOps::LatencyRecord& r = ops.records()[i];
    const double s = static_cast<double>(r.latency_ns) / 1e9;
    p.latency_s[r.type].push_back(static_cast<float>(s));
    p.max_op_s = std::max(p.max_op_s, s);
  }
  return p;
}

std::string FormatMdwLine(const std::string& phase, const MdwLinePart& p, const MdwLineSettings& s,
                          const std::vector<double>* rank_times) {
  const double t = p.elapsed_s;
  const int created = static_cast<int>(p.ok(OpType::kCreate)), read = static_cast<int>(p.ok(OpType::kRead));
  const int deleted = static_cast<int>(p.ok(OpType::kDelete)), sets = static_cast<int>(p.data_sets);
  const double mib_s = static_cast<double>(created + read) * static_cast<double>(s.object_size) / t / 1024 / 1024;
  std::string out;
  Append(&out, "%s process max:%.2fs ", phase.c_str(), t);
  if (rank_times != nullptr) {
    const std::vector<double>& r = *rank_times;
    double lo = 1e308, hi = 0, sum = 0, squares = 0;
    for (double x : r) lo = std::min(lo, x), hi = std::max(hi, x), sum += x;
    const double mean = sum / static_cast<double>(r.size());
    for (double x : r) squares += (mean - x) * (mean - x);
    // One rank: 0 / 0, printed as MD-Workbench prints it.
    const double deviation = std::sqrt(squares / static_cast<double>(r.size() - 1));
    Append(&out, "min:%.1fs mean: %.1fs balance:%.1f stddev:%.1f ", lo, mean, lo / hi * 100.0, deviation);
  }
  if (phase == "benchmark") {
    Append(&out, "rate:%.1f iops/s objects:%d rate:%.1f obj/s tp:%.1f MiB/s op-max:%.4es",
           read * (s.read_only ? 2 : 4) / t, read, read / t, mib_s, p.max_op_s);
  } else if (phase == "precreate") {
    Append(&out, "rate:%.1f iops/s dsets: %d objects:%d rate:%.3f dset/s rate:%.1f obj/s tp:%.1f MiB/s op-max:%.4es",
           (sets + created) / t, sets, created, sets / t, created / t, mib_s, p.max_op_s);
  } else {
    Append(&out, "rate:%.1f iops/s objects:%d dsets: %d rate:%.1f obj/s rate:%.3f dset/s op-max:%.4es",
           (deleted + sets) / t, deleted, sets, deleted / t, sets / t, p.max_op_s);
  }
  const uint64_t errors = p.error_total();
  Append(&out, " (%d errs%s)", static_cast<int>(errors), errors > 0 ? "!!!" : "");
  if (s.stonewall_iter > 0) Append(&out, " stonewall-iter:%d", static_cast<int>(s.stonewall_iter));
  for (OpType type : kLineOrder) {
    if (!p.latency_s[Index(type)].empty()) AppendLatencies(&out, type, p.latency_s[Index(type)]);
  }
  return out;
}

std::string MdwResultLines(const std::string& phase, const MdwLinePart& mine, const MdwLineSettings& s, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double fixed[kFixed] = {mine.elapsed_s, mine.max_op_s};
  for (int t = 0; t < kOpTypes; t++) {
    fixed[2 + t] = static_cast<double>(mine.count[t]);
    fixed[2 + kOpTypes + t] = static_cast<double>(mine.errors[t]);
  }
  fixed[2 + 2 * kOpTypes] = static_cast<double>(mine.data_sets);
  fixed[3 + 2 * kOpTypes] = static_cast<double>(mine.other_errors);
  std::vector<double> all(rank == 0 ? kFixed * static_cast<size_t>(size) : 0);
  MPI_Request request;
  MPI_Igather(fixed, kFixed, MPI_DOUBLE, all.data(), kFixed, MPI_DOUBLE, 0, comm, &request);
  QuietWait(&request);

  std::vector<MdwLinePart> parts(rank == 0 ? size : 0);
  for (int r = 0; r < static_cast<int>(parts.size()); r++) {
    const double* f = &all[static_cast<size_t>(r) * kFixed];
    MdwLinePart& p = parts[r];
    p.elapsed_s = f[0], p.max_op_s = f[1];
    for (int t = 0; t < kOpTypes; t++) {
      p.count[t] = static_cast<uint64_t>(f[2 + t]);
      p.errors[t] = static_cast<uint64_t>(f[2 + kOpTypes + t]);
      p.latency_s[t].resize(p.count[t]);
    }
    p.data_sets = static_cast<uint64_t>(f[2 + 2 * kOpTypes]);
    p.other_errors = static_cast<uint64_t>(f[3 + 2 * kOpTypes]);
  }
  // Every operation's latency, per type, one gather each.
  MdwLinePart merged;
  for (int t = 0; t < kOpTypes; t++) {
    std::vector<int> counts, offsets;
    for (const MdwLinePart& p : parts) {
      offsets.push_back(counts.empty() ? 0 : offsets.back() + counts.back());
      counts.push_back(static_cast<int>(p.count[t]));
    }
    std::vector<float>& into = merged.latency_s[t];
    into.resize(rank == 0 ? static_cast<size_t>(offsets.back() + counts.back()) : 0);
    const std::vector<float>& sent = mine.latency_s[t];
    MPI_Igatherv(sent.data(), static_cast<int>(sent.size()), MPI_FLOAT, into.data(), counts.data(), offsets.data(),
                 MPI_FLOAT, 0, comm, &request);
    QuietWait(&request);
    for (size_t r = 0; r < parts.size(); r++) {
      std::copy(into.begin() + offsets[r], into.begin() + offsets[r] + counts[r], parts[r].latency_s[t].begin());
    }
  }
  if (rank != 0) return "";

  std::vector<double> times;
  for (const MdwLinePart& p : parts) {
    times.push_back(p.elapsed_s);
    merged.elapsed_s = std::max(merged.elapsed_s, p.elapsed_s);
    merged.max_op_s = std::max(merged.max_op_s, p.max_op_s);
    for (int t = 0; t < kOpTypes; t++) merged.count[t] += p.count[t], merged.errors[t] += p.errors[t];
    merged.data_sets += p.data_sets;
    merged.other_errors += p.other_errors;
  }
  std::string out = FormatMdwLine(phase, merged, s, &times) + "\n";
  if (s.process_reports) {
    for (size_t r = 0; r < parts.size(); r++)
      out += std::to_string(r) + ": " + FormatMdwLine(phase, parts[r], s, nullptr) + "\n";
  }
  return out;
}

}  // namespace deltameta
