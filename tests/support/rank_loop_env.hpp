#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectives/mpi/mpi_communicator.hpp"
#include "io/result_sink.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/job/task_space.hpp"
#include "runner/run/loop/rank_loop_setup.hpp"

namespace shardrun::testing {

/** What a test changes about one rank-loop run; the rest comes from the job. */
struct LoopRunOptions {
    placement::IdRange element{0, 0};  ///< {0, 0}: every task of the job
    int slots = 0;                     ///< 0: the job's slots_per_rank
    int gpus_per_task = 0;             ///< 0: the job's gpus_per_task
    int retries = -1;                  ///< -1: the job's retries
    const std::vector<bool>* committed = nullptr;
    const std::atomic<bool>* stop = nullptr;
    std::string tasks_dir;
    /** Every rank poses as its own node, as on a cluster: claims go through rank 0's claim service. */
    bool one_rank_nodes = false;
    /** Called on every rank after the counters exist and before the loop runs. */
    std::function<void()> before_run;
    /** Called on every rank right after its loop ran, before the claim service ends. */
    std::function<void()> after_run;
};

/** What one rank saw of the run. */
struct LoopRunResult {
    run::RankStats stats;
    collectives::ProgressCounts progress;  ///< job-wide on rank 0, after every rank finished
    placement::GroupLayout layout;
};

/**
 * The MPI tests' way to run a rank loop, wired exactly as `shardrun run` wires it
 * (RankLoopSetup over the world and node communicators), in the spirit of HyperQueue's
 * TestEnv: tests state only what differs. Collective over the world; ends with a barrier.
 */
inline LoopRunResult run_loop(const job::JobSpec& spec, const tasks::TaskKind& kind, io::ResultSink& sink,
                              const LoopRunOptions& options = {})
{
    const auto world = collectives::mpi::world();
    const auto node = options.one_rank_nodes ? world->split(world->rank(), 0) : collectives::mpi::split_by_node(*world);
    const auto space = job::TaskSpace::of(spec, spec.data.items);
    run::LoopSettings settings;
    settings.kind = &kind;
    settings.space = &space;
    settings.fields = kind.fields(spec.params);
    settings.tasks_dir = options.tasks_dir;
    settings.slots = options.slots > 0 ? options.slots : spec.slots_per_rank;
    settings.retries = options.retries >= 0 ? options.retries : spec.retries;
    settings.committed = options.committed;
    settings.stop = options.stop;
    const auto element = options.element.last == 0 ? placement::IdRange{0, space.size()} : options.element;
    run::RankLoopSetup setup(*world, *node, settings, spec.schedule, element,
                             options.gpus_per_task > 0 ? options.gpus_per_task : spec.gpus_per_task);
    if (options.before_run) options.before_run();
    LoopRunResult result;
    result.stats = setup.run(sink);
    if (options.after_run) options.after_run();
    setup.finish();
    world->barrier();
    result.progress = setup.counters().read_progress();
    result.layout = setup.layout();
    world->barrier();
    return result;
}

}  // namespace shardrun::testing
