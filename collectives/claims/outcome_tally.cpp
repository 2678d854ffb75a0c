// The job-wide outcome tally of WorkCounters: each outcome is added the moment it ends (no
// batching), so that ranks stop on failures counted across the job, not one progress push late.
#include "collectives/claims/work_counters.hpp"
#include "collectives/claims/work_counters_state.hpp"

namespace shardrun::collectives {

void WorkCounters::State::add_outcome_shared(bool ok, std::int32_t code)
{
    if (ok) {
        ++shared->outcome_ok;
        return;
    }
    ++shared->outcome_failed;
    if (shared->outcome_ok.load() > 0) return;  // the leading run of failures ended with the first ok
    // The code first, the count after: a rank that reads the count has the codes it covers.
    auto first = no_code;
    if (!shared->leading_code.compare_exchange_strong(first, code) && first != code) shared->mixed_codes.store(1);
    ++shared->outcome_leading;
}

OutcomeTally WorkCounters::add_outcome(bool ok, std::int32_t code)
{
    auto& s = *state_;
    s.add_outcome_shared(ok, code);
    if (s.several_nodes && !s.on_service_node) {
        s.tell_service({outcome_kind, s.service->rank(), ok ? 1 : 0, code, 0, 0});
    }
    return read_outcomes();
}

OutcomeTally WorkCounters::read_outcomes() const
{
    const auto& shared = *state_->shared;
    OutcomeTally tally;
    tally.leading = shared.outcome_leading.load();  // before the codes (see add_outcome_shared)
    tally.ok = shared.outcome_ok.load();
    tally.failed = shared.outcome_failed.load();
    tally.leading_code = shared.leading_code.load();
    tally.one_code = shared.mixed_codes.load() == 0;
    return tally;
}

}  // namespace shardrun::collectives
