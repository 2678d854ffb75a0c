#include "runner/run/agreement.hpp"

#include <string>

#include "runner/errors.hpp"
#include "runner/run/error_codes.hpp"

namespace shardrun::run {

void run_agreed(collectives::Communicator& comm, const std::function<void()>& step)
{
    using collectives::ReduceOp;
    std::string message;
    std::int32_t code = 0;
    try {
        step();
    } catch (const CollectiveFailure&) {
        throw;
    } catch (const std::exception& error) {
        message = error.what();
        code = exit_code_of(error);
    }
    const std::int32_t first_failing = comm.allreduce_value<std::int32_t>(code != 0 ? comm.rank() : comm.size(),
                                                                           ReduceOp::min);
    if (first_failing == comm.size()) return;
    const auto agreed_code = comm.broadcast_value<std::int32_t>(code, first_failing);
    SHARDRUN_THROW(CollectiveFailure, message, agreed_code, comm.rank() == first_failing);
}

bool any_member(collectives::Communicator& comm, bool mine)
{
    return comm.allreduce_value<std::int32_t>(mine ? 1 : 0, collectives::ReduceOp::max) != 0;
}

}  // namespace shardrun::run
