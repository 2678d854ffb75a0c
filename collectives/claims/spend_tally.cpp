// The job-wide spend tally of WorkCounters (a budget, issue 38 point 3): each change is added the
// moment it happens, so that ranks stop claiming on spend counted across the job.
#include "collectives/claims/work_counters.hpp"
#include "collectives/claims/work_counters_state.hpp"

namespace shardrun::collectives {

void WorkCounters::State::add_spend_shared(const SpendTally& delta)
{
    shared->spend_spent += delta.spent;
    shared->spend_running += delta.running;
    shared->spend_finished += delta.finished;
}

SpendTally WorkCounters::add_spend(const SpendTally& delta)
{
    auto& s = *state_;
    s.add_spend_shared(delta);
    if (s.several_nodes && !s.on_service_node) {
        s.tell_service({spend_kind, s.service->rank(), delta.spent, delta.running, delta.finished, 0});
    }
    return read_spend();
}

SpendTally WorkCounters::read_spend() const
{
    const auto& shared = *state_->shared;
    return {shared.spend_spent.load(), shared.spend_running.load(), shared.spend_finished.load()};
}

}  // namespace shardrun::collectives
