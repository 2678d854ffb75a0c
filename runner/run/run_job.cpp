#include "runner/run/run_job.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "collectives/mpi/mpi_error.hpp"
#include "runner/env/run_environment.hpp"
#include "runner/errors.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/agreement.hpp"
#include "runner/run/device_choice.hpp"
#include "runner/run/interrupt.hpp"
#include "runner/run/output_session.hpp"
#include "runner/run/prepared_job.hpp"
#include "runner/run/rank_loop.hpp"
#include "runner/run/summary.hpp"

namespace shardrun::run {
namespace {

bool any_rank(bool mine)
{
    int local = mine ? 1 : 0, any = 0;
    SHARDRUN_MPI_CHECK(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    return any != 0;
}

std::unique_ptr<ProgressThread> start_progress(SharedCounters& counters, ProgressReporter* reporter)
{
    int level = 0;
    MPI_Query_thread(&level);
    // Without MPI_THREAD_MULTIPLE the claim counter only progresses when its owner calls MPI.
    if (level < MPI_THREAD_MULTIPLE) return nullptr;
    return std::make_unique<ProgressThread>(counters, reporter);
}

void print_summary(const RunOptions& options, const RunTotals& totals, const std::vector<RankStats>& stats)
{
    if (options.progress == ProgressMode::json) {
        std::cout << summary_json(totals, stats) << std::endl;
    } else if (options.progress != ProgressMode::quiet) {
        std::cout << format_summary(totals, stats) << std::flush;
    }
}

}  // namespace

int run_job(const RunOptions& options)
{
    const auto started = std::chrono::steady_clock::now();
    install_interrupt_handlers();
    env::RunEnvironment environment;
    PreparedJob job;
    placement::GroupLayout group;
    run_agreed([&] {
        environment = env::detect_run_environment(options.array);
        job = prepare_job(options.job_file, options.overrides);
        environment.device = choose_device(job.spec, environment.device);
        group = placement::group_layout(environment.topology.world_rank, environment.topology.world_size,
                                        job.spec.gpus_per_task);
    });
    const auto& topo = environment.topology;
    const auto element = placement::array_block(job.task_count(), static_cast<std::uint64_t>(environment.array.index),
                                                static_cast<std::uint64_t>(environment.array.count));
    OutputSession output(job, environment, element, options.resume, options.force);

    SharedCounters counters;
    std::unique_ptr<ProgressReporter> reporter;
    if (topo.world_rank == 0) {
        reporter = std::make_unique<ProgressReporter>(options.progress, options.progress_interval_seconds,
                                                      static_cast<std::int64_t>(element.size()),
                                                      static_cast<std::int64_t>(output.committed_count()));
    }
    auto progress_thread = start_progress(counters, reporter.get());
    ProgressFeed feed(counters);
    LoopSettings settings{job.kind.get(), job.space.get(), job.fields, job.spec.data.input, environment.device,
                          topo.world_rank, topo.host, output.tasks_dir(), job.spec.retries, job.spec.slots_per_rank,
                          output.committed(), &stop_requested()};
    settings.periodic_commits = output.periodic_commits();
    auto source = make_work_source(job.spec.schedule, element, group, counters);
    const auto stats = run_rank_loop(settings, *source, output.sink(), feed);

    const bool interrupted = any_rank(stop_requested().load());
    progress_thread.reset();
    if (reporter) reporter->update(counters.read_progress(), true);
    const auto all_stats = gather_stats(stats);
    output.finish(interrupted);
    const bool failed = any_rank(stats.failed > 0);
    if (topo.world_rank == 0) {
        const RunTotals totals{job.spec.name, element.size(),
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                               interrupted, output.path()};
        print_summary(options, totals, all_stats);
    }
    return interrupted ? exit_interrupted : failed ? exit_task_failed : exit_ok;
}

}  // namespace shardrun::run
