#include "runner/run/error_codes.hpp"

#include "base/error.hpp"

namespace shardrun::run {

int exit_code_of(const std::exception& error) noexcept
{
    // Every error class knows its category; anything else (std::bad_alloc, a library's own) is a failure.
    const auto* own = dynamic_cast<const Error*>(&error);
    return own != nullptr ? own->exit_code() : exit_task_failed;
}

}  // namespace shardrun::run
