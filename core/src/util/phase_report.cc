// Phase results and the result line: see phase_report.h.
#include "util/phase_report.h"

#include <sys/resource.h>

#include <nlohmann/json.hpp>

namespace deltameta {

double MicrosPerOp(const JobPhase& job) {
  return job.counters.ops > 0 ? job.rank_sum_s * 1e6 / static_cast<double>(job.counters.ops) : 0;
}

std::string ResultLine(const std::string& phase, const JobPhase& job) {
  const double ops = static_cast<double>(job.counters.ops);
  const double micros = MicrosPerOp(job);
  const double mops = job.elapsed_s > 0 ? ops / job.elapsed_s / 1e6 : 0;
  char buf[256];
  std::snprintf(buf, sizeof(buf), "==%-10s: %9.3f micros/op, %9.3f Mop/s, %15.3f s, %15llu ops", phase.c_str(), micros,
                mops, job.elapsed_s, static_cast<unsigned long long>(job.counters.ops));
  return buf;
}

double ProcessCpuSeconds() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

bool JsonLinesFile::Open(const std::string& path, std::string* error, bool append) {
  if (path.empty()) return true;
  file_ = std::fopen(path.c_str(), append ? "a" : "w");
  if (file_ == nullptr) *error = "cannot write --json file " + path + ": check the directory exists";
  return file_ != nullptr;
}

void JsonLinesFile::Append(const nlohmann::json& doc) {
  if (file_ == nullptr) return;
  std::fprintf(file_, "%s\n", doc.dump().c_str());
  std::fflush(file_);
}

JsonLinesFile::~JsonLinesFile() {
  if (file_) std::fclose(file_);
}

}  // namespace deltameta
