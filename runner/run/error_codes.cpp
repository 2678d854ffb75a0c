#include "runner/run/error_codes.hpp"

#include "io/errors.hpp"
#include "runner/errors.hpp"

namespace shardrun::run {

int exit_code_of(const std::exception& error) noexcept
{
    if (dynamic_cast<const UsageError*>(&error) || dynamic_cast<const JobFileError*>(&error) ||
        dynamic_cast<const io::OutputError*>(&error)) {
        return exit_bad_input;
    }
    return exit_task_failed;
}

}  // namespace shardrun::run
