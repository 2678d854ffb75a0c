// --resume after the sweep gained values: decide whether the job only grew, then grow its ids.
#include "runner/run/setup/sweep_extension.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/documented_error.hpp"
#include "io/read/recorded_job.hpp"
#include "runner/errors.hpp"
#include "runner/job/extended_sweep.hpp"
#include "runner/job/job_change.hpp"
#include "runner/job/param_shapes.hpp"
#include "runner/run/agreement.hpp"

namespace shardrun::run {
namespace {

/** The recorded lineage (earlier jobs, then the recorded job), read on rank 0 and given to all. */
std::vector<std::string> recorded_lineage(collectives::Communicator& world, const std::string& local_path, int array_index)
{
    std::string mine;
    run_agreed(world, [&] {
        if (world.rank() != 0) return;
        if (const auto recorded = io::recorded_job(local_path, array_index)) {
            auto lineage = recorded->earlier_jobs;
            lineage.push_back(recorded->params_json);
            mine = nlohmann::json(lineage).dump();
        }
    });
    const auto text = collectives::allgather_strings(world, mine).front();
    return text.empty() ? std::vector<std::string>{} : nlohmann::json::parse(text).get<std::vector<std::string>>();
}

}  // namespace

void extend_for_resume(collectives::Communicator& world, PreparedJob& job, const OutputPlace& place, int array_index,
                       int array_count)
{
    auto lineage = recorded_lineage(world, place.local, array_index);
    run_agreed(world, [&] {
        const auto& now = job.spec.resolved_json;
        if (lineage.empty() || (lineage.size() == 1 && lineage.back() == now)) return;  // the same job
        const auto& path = place.user;  // a bucket output is named by its URL, not the mirror
        if (lineage.back() != now) {
            if (const auto change = job::job_change(lineage.back(), now)) {
                SHARDRUN_THROW_DOCUMENTED(JobFileError, "docs/troubleshooting.md#resume-mismatch",
                                          job.spec.file + ": cannot --resume " + path + ": " + *change +
                                          "; a resumed job may only add sweep values or points (use --force to start "
                                          "over, or another output.path)");
            }
            lineage.push_back(now);
        }
        // Stable ids need the master to grow in place: one element, shards (README, "Extending a sweep").
        if (job.spec.output.layout == "single" || array_count != 1 || array_index != 0) {
            SHARDRUN_THROW_DOCUMENTED(UsageError, "docs/troubleshooting.md#resume-mismatch",
                                      job.spec.file + ": cannot --resume " + path + " with added sweep values: "
                                      "extending a sweep works with output.layout shards and no array job");
        }
        // The master's parameter-sized axes keep the first run's largest values: an added value above one cannot fit.
        for (const auto& field : job.spec.exec.results) {
            if (field.length_param.empty()) continue;
            const auto before = job::parameter_extent(job::resolved_sweep(lineage.front(), job.spec.file), job.spec.params,
                                                      field.length_param);
            const auto* stored = std::get_if<std::uint64_t>(&before);
            if (stored != nullptr && *stored != field.shape[field.length_axis]) {
                SHARDRUN_THROW_DOCUMENTED(JobFileError, "docs/troubleshooting.md#resume-mismatch",
                                          fmt::format("{}: cannot --resume {}: exec.results.{} is stored {} long (the largest "
                                                      "{{{}}} of the first run), and the added sweep values reach {}; a "
                                                      "resumed job may only add values up to {} (use --force to start "
                                                      "over, or another output.path)",
                                                      job.spec.file, path, field.name, *stored, field.length_param,
                                                      field.shape[field.length_axis], *stored));
            }
        }
        job.spec.sweep = job::extended_sweep(lineage, job.spec.file);
        job.space = std::make_unique<job::TaskSpace>(job::TaskSpace::of(job.spec, job.items));
        lineage.pop_back();
        job.earlier_jobs = std::move(lineage);
    });
}

}  // namespace shardrun::run
