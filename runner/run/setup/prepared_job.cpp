#include "runner/run/setup/prepared_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/job/yaml_context.hpp"
#include "runner/run/setup/data_input.hpp"
#include "runner/run/setup/device_choice.hpp"
#include "runner/run/setup/param_checks.hpp"
#include "runner/tasks/dataset_shapes.hpp"
#include "runner/tasks/registry.hpp"

namespace shardrun::run {
namespace {

constexpr std::uint64_t points_validated = 100000;

bool same_fields(const std::vector<io::FieldSpec>& a, const std::vector<io::FieldSpec>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
        return x.name == y.name && x.dtype == y.dtype && x.shape == y.shape;
    });
}

// The kind's own checks, per sweep point, after the table's (names, types, ranges) passed.
void validate_points(PreparedJob& job, const tasks::JobView& view)
{
    const auto points = std::min(job.spec.sweep.size(), points_validated);
    auto params = job.space->params_of(0);
    for (std::uint64_t point = 0; point < points; ++point) {
        job.space->update_params(point * job.space->chunks(), params);
        try {
            job.kind->validate(params, view);
            if (point == 0) {
                job.fields = job.kind->fields(params);
            } else if (job.kind->fields_depend_on_params() && !same_fields(job.kind->fields(params), job.fields)) {
                SHARDRUN_THROW(JobFileError, "the result fields' shapes change across the sweep; sweep only parameters that keep them");
            }
        } catch (const JobFileError& error) {
            throw JobFileError(error.file(), error.line(), locate_kind_error(job.spec, point, error.what()));
        }
    }
}

}  // namespace

PreparedJob prepare_job(const std::string& file, const std::vector<std::string>& overrides, const std::string& job_dir,
                        InputAccess input_access)
{
    PreparedJob job;
    try {
        job.spec = job::load_job(file, overrides, tasks::task_kind_names(), job_dir);
    } catch (const job::UnsetRuleParamError& error) {
        const auto* kind = tasks::find_task_kind(error.task());
        if (kind == nullptr) throw;
        refuse_unset_rule_param(error, *kind->params);
    }
    job.kind = tasks::make_task_kind(job.spec);
    if (const auto kind = tasks::find_task_kind(job.spec.task)) check_params(job.spec, *kind->params);
    check_task_devices(job.spec);  // every kind, exec and noop included
    std::optional<io::DatasetInfo> input;
    if (input_access == InputAccess::stage && storage::is_remote(job.spec.data.input)) {
        // In object storage: downloaded once per node into its scratch folder; the ranks read that copy.
        try {
            job.spec.data.input = stage_remote_input(job.spec);
        } catch (const Error& error) {
            SHARDRUN_THROW(JobFileError, job::located(job.spec.sites.value("data.input", job.spec.file), "data.input", error.what()));
        }
    }
    if (!job.spec.data.input.empty()) input = read_input(job.spec);  // opened once, here
    if (input) job.item_ids = read_item_ids(job.spec);
    job.items = input ? input->dims.front() : job.spec.data.items;
    job.space = std::make_unique<job::TaskSpace>(job::TaskSpace::of(job.spec, job.items));
    tasks::DatasetShapes datasets;  // a file the params name is opened once, not once per sweep point
    validate_points(job, tasks::JobView{&job.spec, input ? &*input : nullptr, &datasets});
    return job;
}

}  // namespace shardrun::run
