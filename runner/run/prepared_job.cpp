#include "runner/run/prepared_job.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/run/data_input.hpp"
#include "runner/tasks/registry.hpp"

namespace shardrun::run {
namespace {

constexpr std::uint64_t points_validated = 100000;

std::string point_text(const tasks::ParamMap& params, const std::vector<std::string>& swept)
{
    std::vector<std::string> parts;
    for (const auto& name : swept) {
        if (const auto* value = params.find(name)) parts.push_back(name + "=" + tasks::param_text(*value));
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

bool same_fields(const std::vector<io::FieldSpec>& a, const std::vector<io::FieldSpec>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
        return x.name == y.name && x.dtype == y.dtype && x.shape == y.shape;
    });
}

void validate_points(PreparedJob& job)
{
    const auto swept = job.spec.sweep.names();
    const auto points = std::min(job.spec.sweep.size(), points_validated);
    for (std::uint64_t point = 0; point < points; ++point) {
        const auto params = job.space->params_of(point * job.space->chunks());
        try {
            job.kind->validate(params);
            auto fields = job.kind->fields(params);
            if (point == 0) {
                job.fields = std::move(fields);
            } else if (!same_fields(fields, job.fields)) {
                throw JobFileError("the result fields' shapes change across the sweep; sweep only parameters that keep them");
            }
        } catch (const JobFileError& error) {
            const auto where = swept.empty() ? "" : fmt::format(" (sweep point {}: {})", point, point_text(params, swept));
            throw JobFileError(fmt::format("{}{}: {}", job.spec.file, where, error.what()));
        }
    }
}

}  // namespace

PreparedJob prepare_job(const std::string& file, const std::vector<std::string>& overrides)
{
    PreparedJob job;
    job.spec = job::load_job(file, overrides, tasks::task_kind_names());
    job.kind = tasks::make_task_kind(job.spec);
    job.items = job.spec.data.input.empty() ? job.spec.data.items : input_items(job.spec);
    job.space = std::make_unique<job::TaskSpace>(job::TaskSpace::of(job.spec, job.items));
    validate_points(job);
    return job;
}

}  // namespace shardrun::run
