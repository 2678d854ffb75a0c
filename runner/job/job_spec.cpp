#include "runner/job/job_spec.hpp"

namespace shardrun::job {

const char* schedule_name(ScheduleKind kind) noexcept
{
    switch (kind) {
    case ScheduleKind::block: return "static";
    case ScheduleKind::cyclic: return "cyclic";
    case ScheduleKind::dynamic: return "dynamic";
    }
    return "?";
}

}  // namespace shardrun::job
