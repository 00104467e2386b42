// One rank's part of each MD-Workbench phase: see phases.h.
#include "mdworkbench/phases.h"

namespace deltameta {
namespace {

uint64_t Nanos(PhaseRunner::Clock::duration d) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

}  // namespace

PhaseRunner::PhaseRunner(MdwInterface* iface, const ObjectSpace& space, uint32_t rank, RankOps* ops)
    : iface_(iface), space_(space), rank_(rank), ops_(ops), start_(Clock::now()) {}

bool PhaseRunner::replaces() const { return iface_->Serves(OpType::kCreate) && iface_->Serves(OpType::kDelete); }

template <typename Op>
Outcome PhaseRunner::Timed(OpType t, Op op) {
  const Clock::time_point t0 = Clock::now();
  const Outcome o = op();
  const Clock::time_point t1 = Clock::now();
  ops_->Record(t, Nanos(t0 - start_), Nanos(t1 - t0));
  return o;
}

bool PhaseRunner::Count(Outcome o, Verification* v, std::string* fatal) {
  switch (o) {
    case Outcome::kOk:
      return true;
    case Outcome::kNotFound:
      v->missing++;
      return true;
    case Outcome::kExists:
      v->failed++;
      if (first_failure_.empty()) first_failure_ = "a create found its object existing already";
      return true;
    case Outcome::kFailed:
      v->failed++;
      if (first_failure_.empty()) first_failure_ = error_;
      return true;
    case Outcome::kFatal:
      *fatal = error_;
      return false;
  }
  return true;
}

bool PhaseRunner::Precreate(std::string* fatal) {
  for (uint32_t d = 0; d < space_.data_sets; d++) {
    const Outcome made = iface_->CreateDataSet(rank_, d, &error_);
    if (!Count(made, &ops_->checks(), fatal)) return false;
    if (made == Outcome::kOk) ops_->data_sets++;
    for (uint64_t k = 0; k < space_.precreate; k++) {
      const ObjectId id{rank_, d, k};
      ObjectBytes(id, space_.object_size, &data_);
      const Outcome o = Timed(OpType::kCreate, [&] { return iface_->Create(id, data_, &error_); });
      if (!Count(o, &ops_->errors(OpType::kCreate), fatal)) return false;
    }
  }
  return true;
}

bool PhaseRunner::Position(uint32_t target, uint64_t k, bool replace, std::string* fatal) {
  const bool stat = iface_->Serves(OpType::kStat), read = iface_->Serves(OpType::kRead);
  const uint32_t mode = iface_->ExpectedMode();
  for (uint32_t d = 0; d < space_.data_sets; d++) {
    const ObjectId old = space_.Handled(target, d, k, replace);
    if (stat) {
      ObjectAttributes a;
      const Outcome o = Timed(OpType::kStat, [&] { return iface_->Stat(old, &a, &error_); });
      Verification& v = ops_->errors(OpType::kStat);
      if (!Count(o, &v, fatal)) return false;
      if (o == Outcome::kOk && (a.size != space_.object_size || a.mode != mode)) v.mismatched++;
    }
    if (read) {
      const Outcome o = Timed(OpType::kRead, [&] { return iface_->Read(old, &data_, &error_); });
      Verification& v = ops_->errors(OpType::kRead);
      if (!Count(o, &v, fatal)) return false;
      if (o == Outcome::kOk && !IsObjectBytes(old, space_.object_size, data_)) v.wrong_bytes++;
    }
    if (!replace) continue;
    Outcome o = Timed(OpType::kDelete, [&] { return iface_->Delete(old, &error_); });
    if (!Count(o, &ops_->errors(OpType::kDelete), fatal)) return false;
    const ObjectId fresh = space_.Replacement(target, d, k);
    ObjectBytes(fresh, space_.object_size, &data_);
    o = Timed(OpType::kCreate, [&] { return iface_->Create(fresh, data_, &error_); });
    if (!Count(o, &ops_->errors(OpType::kCreate), fatal)) return false;
  }
  return true;
}

bool PhaseRunner::BenchmarkIteration(uint64_t first, const Stonewall& wall, IterationRun* run, std::string* fatal) {
  const uint32_t target = space_.TargetOf(rank_);
  const bool replace = replaces();
  const Clock::time_point t0 = Clock::now();
  bool armed = wall.seconds > 0;
  // Every rank takes part in the wear-out agreement once, even one that cannot go on.
  auto agree = [&](uint64_t ran) {
    armed = false;
    const Clock::time_point a0 = Clock::now();
    const uint64_t all = wall.agree(ran);
    run->agree_s += std::chrono::duration<double>(Clock::now() - a0).count();
    return all;
  };
  *run = IterationRun();
  uint64_t limit = space_.per_iteration;
  bool ok = true;
  while (run->positions < limit) {
    if (!Position(target, first + run->positions, replace, fatal)) {
      ok = false;
      break;
    }
    run->positions++;
    const double t = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!armed || t < wall.seconds) continue;
    run->hit_s = t;
    if (!wall.wear_out) {
      run->stopped = run->positions < limit;
      break;
    }
    limit = agree(run->positions);
    run->stopped = limit < space_.per_iteration;
  }
  if (armed && wall.wear_out) {
    limit = agree(space_.per_iteration);
    run->stopped = limit < space_.per_iteration;
  }
  return ok;
}

bool PhaseRunner::Cleanup(uint64_t first, std::string* fatal) {
  for (uint32_t d = 0; d < space_.data_sets; d++) {
    for (uint64_t k = first; k < first + space_.precreate; k++) {
      const ObjectId id{rank_, d, k};
      const Outcome o = Timed(OpType::kDelete, [&] { return iface_->Delete(id, &error_); });
      if (!Count(o, &ops_->errors(OpType::kDelete), fatal)) return false;
    }
    // A data set that is not empty now held objects it should not have.
    const Outcome removed = iface_->RemoveDataSet(rank_, d, &error_);
    if (!Count(removed, &ops_->checks(), fatal)) return false;
    if (removed == Outcome::kOk) ops_->data_sets++;
  }
  return true;
}

bool PhaseRunner::ExpectGone(const ObjectId& id, std::string* fatal) {
  ObjectAttributes a;
  const Outcome o = iface_->Stat(id, &a, &error_);
  if (o == Outcome::kOk) {
    ops_->checks().deleted_still_found++;
    return true;
  }
  return o == Outcome::kNotFound || Count(o, &ops_->checks(), fatal);
}

bool PhaseRunner::CheckBenchmarkDeletes(uint64_t first, uint64_t positions, std::string* fatal) {
  if (!replaces()) return true;
  const uint32_t target = space_.TargetOf(rank_);
  for (uint64_t k = first; k < first + positions; k++) {
    for (uint32_t d = 0; d < space_.data_sets; d++) {
      if (!ExpectGone(space_.Handled(target, d, k, true), fatal)) return false;
    }
  }
  return true;
}

bool PhaseRunner::CheckCleanupDeletes(uint64_t first, std::string* fatal) {
  for (uint32_t d = 0; d < space_.data_sets; d++) {
    for (uint64_t k = first; k < first + space_.precreate; k++) {
      if (!ExpectGone(ObjectId{rank_, d, k}, fatal)) return false;
    }
  }
  return true;
}

}  // namespace deltameta
