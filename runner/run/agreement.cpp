#include "runner/run/agreement.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "runner/errors.hpp"
#include "runner/run/error_codes.hpp"
#include "runner/run/error_message.hpp"

namespace shardrun::run {
namespace {

// The lowest value over `comm`, waited for without spinning a core: the other ranks often wait
// here while rank 0 alone prepares or consolidates the output, and on a busy node (or two
// ranks on two cores, with mpirun beside them) a blocking MPI wait would take CPU from it.
std::int32_t gentle_min(collectives::Communicator& comm, std::int32_t value)
{
    std::int32_t lowest = value;
    auto request = comm.iallreduce(std::span<const std::int32_t>(&value, 1), std::span<std::int32_t>(&lowest, 1),
                                   collectives::ReduceOp::min);
    for (int spin = 0; spin < 100; ++spin) {
        if (request.test()) return lowest;
    }
    auto nap = std::chrono::microseconds(20);
    while (!request.test()) {
        std::this_thread::sleep_for(nap);
        nap = std::min(nap * 2, std::chrono::microseconds(1000));
    }
    return lowest;
}

}  // namespace

void run_agreed(collectives::Communicator& comm, const std::function<void()>& step)
{
    std::string message;
    std::int32_t code = 0;
    try {
        step();
    } catch (const CollectiveFailure&) {
        throw;
    } catch (const std::exception& error) {
        message = user_message(error);  // with its docs pointer: the agreed failure is printed as it is
        code = exit_code_of(error);
    }
    const std::int32_t first_failing = gentle_min(comm, code != 0 ? comm.rank() : comm.size());
    if (first_failing == comm.size()) return;
    const auto agreed_code = comm.broadcast_value<std::int32_t>(code, first_failing);
    SHARDRUN_THROW(CollectiveFailure, message, agreed_code, comm.rank() == first_failing);
}

bool any_member(collectives::Communicator& comm, bool mine)
{
    return comm.allreduce_value<std::int32_t>(mine ? 1 : 0, collectives::ReduceOp::max) != 0;
}

}  // namespace shardrun::run
