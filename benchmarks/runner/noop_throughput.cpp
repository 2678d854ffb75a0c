// In-process no-op tasks through the scheduler, under mpirun: static and dynamic schedules
// against an anchor measured in the same run, a bare loop calling the same task kind on the
// same ids. The sink discards records, so this is the scheduling cost alone; the full run
// with HDF5 output is `shardrun run` itself (see benchmarks/README.md).
#include <mpi.h>

#include <chrono>
#include <cstdio>

#include "collectives/mpi/mpi_communicator.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/loop/rank_loop_setup.hpp"
#include "runner/tasks/noop_kind.hpp"
#include "runner/tasks/registry.hpp"

namespace {

using namespace shardrun;

class DiscardSink : public io::ResultSink {
public:
    void record_locked(const io::TaskRecord&, const io::TaskValues&) override {}
    void commit_locked() override {}
};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Seconds for this rank to run its share under `kind`; the max over ranks is returned.
double timed_run(collectives::Communicator& world, collectives::Communicator& node, const job::JobSpec& spec,
                 job::ScheduleKind kind)
{
    tasks::NoopKind noop;
    const auto space = job::TaskSpace::of(spec, 0);
    run::LoopSettings settings;
    settings.kind = &noop;
    settings.space = &space;
    settings.fields = noop.fields({});
    settings.commit_interval_seconds = 1e9;
    DiscardSink sink;
    auto schedule = spec.schedule;
    schedule.kind = kind;
    run::RankLoopSetup loop(world, node, settings, schedule, {0, space.size()}, 1);
    world.barrier();
    const double start = now();
    loop.run(sink);
    const double slowest = world.allreduce_value(now() - start, collectives::ReduceOp::max);
    loop.finish();
    return slowest;
}

double anchor_run(collectives::Communicator& world, const job::JobSpec& spec)
{
    const int rank = world.rank(), size = world.size();
    tasks::NoopKind noop;
    const auto space = job::TaskSpace::of(spec, 0);
    const auto share = placement::block_share({0, space.size()}, rank, size);
    auto params = space.params_of(0);
    tasks::TaskContext context{0, space.size(), &params, std::nullopt, "", {}, rank, "", "", 1, nullptr};
    world.barrier();
    const double start = now();
    double checksum = 0;
    for (std::uint64_t k = 0; k < share.count; ++k) {
        context.task_id = share.id(k);
        space.update_params(context.task_id, params);
        checksum += static_cast<double>(noop.run(context).values.size());
    }
    const double slowest = world.allreduce_value(now() - start, collectives::ReduceOp::max);
    if (checksum < 0) std::puts("");  // keeps the loop from being optimised away
    return slowest;
}

}  // namespace

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    auto world = collectives::mpi::world();
    auto node = collectives::mpi::split_by_node(*world);
    const int rank = world->rank(), size = world->size();
    const long tasks = argc > 1 ? std::atol(argv[1]) : 1000000;
    const auto text = "task: noop\nsweep: {i: {range: [0, " + std::to_string(tasks) + ", 1]}}\n";
    const auto spec = job::parse_job("bench.yaml", text, {}, tasks::task_kind_names());
    const double anchor = anchor_run(*world, spec);
    const double fixed = timed_run(*world, *node, spec, job::ScheduleKind::block);
    const double dynamic = timed_run(*world, *node, spec, job::ScheduleKind::dynamic);
    if (rank == 0) {
        const double per_rank = static_cast<double>(tasks) / size;
        std::printf("no-op tasks: %ld on %d ranks\n", tasks, size);
        std::printf("%-34s %14s %10s\n", "", "tasks/s/rank", "tasks/s");
        std::printf("%-34s %14.0f %10.0f\n", "anchor: bare loop, same kind", per_rank / anchor, tasks / anchor);
        std::printf("%-34s %14.0f %10.0f\n", "static schedule", per_rank / fixed, tasks / fixed);
        std::printf("%-34s %14.0f %10.0f\n", "dynamic schedule", per_rank / dynamic, tasks / dynamic);
        std::printf("ratio static/anchor:  %.2f; static per rank vs target 1e6/s: %.2f\n", anchor / fixed,
                    per_rank / fixed / 1e6);
        std::printf("ratio dynamic/anchor: %.2f; dynamic total vs target 1e5/s: %.2f\n", anchor / dynamic,
                    tasks / dynamic / 1e5);
    }
    node.reset();
    world.reset();
    MPI_Finalize();
    return 0;
}
