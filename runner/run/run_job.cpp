#include "runner/run/run_job.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "collectives/liveness/heartbeat_ring.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "runner/env/launcher_banner.hpp"
#include "runner/env/run_environment.hpp"
#include "runner/errors.hpp"
#include "runner/gpu/sampler_fault_source.hpp"
#include "runner/gpu/telemetry_sampler.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/agreement.hpp"
#include "runner/run/device_choice.hpp"
#include "runner/run/device_health.hpp"
#include "runner/run/failure_budget.hpp"
#include "runner/run/given_back.hpp"
#include "runner/run/gpu_sharing_setup.hpp"
#include "runner/run/interrupt.hpp"
#include "runner/run/output_session.hpp"
#include "runner/run/prepared_job.hpp"
#include "runner/run/rank_loop_setup.hpp"
#include "runner/run/summary.hpp"
#include "runner/run/sweep_extension.hpp"
#include "runner/tasks/registry.hpp"

namespace shardrun::run {
namespace {

void print_summary(const RunOptions& options, const RunTotals& totals, const std::vector<RankStats>& stats)
{
    if (options.progress == ProgressMode::json) {
        std::cout << summary_json(totals, stats) << std::endl;
    } else if (options.progress != ProgressMode::quiet) {
        std::cout << format_summary(totals, stats) << std::flush;
    } else if (!totals.stop_reason.empty()) {
        std::cerr << "shardrun: " << totals.stop_reason << "\n";  // -q keeps no summary, but why it stopped is kept
    }
}

/** The reason of the first rank that gave up on failures; empty when none did. Collective. */
std::string stop_reason_of(collectives::Communicator& world, const FailureBudget& budget)
{
    for (const auto& reason : collectives::allgather_strings(world, budget.reason())) {
        if (!reason.empty()) return reason;
    }
    return "";
}

LoopSettings loop_settings(const PreparedJob& job, const env::RunEnvironment& environment, OutputSession& output)
{
    LoopSettings settings{job.kind.get(), job.space.get(), job.fields, job.spec.data.input, environment.device,
                          environment.topology.world_rank, environment.topology.host,
                          std::filesystem::absolute(output.tasks_dir()).string(),  // SHARDRUN_TASK_DIR: absolute (issue 11.8)
                          job.spec.retries, job.spec.slots_per_rank, output.committed(), &stop_requested()};
    settings.claims_closed = &claims_closed();
    settings.drain_timeout_seconds = job.spec.drain_timeout_seconds;
    settings.periodic_commits = output.periodic_commits();
    settings.collective_timeout_seconds = job.spec.collective_timeout_seconds;
    settings.route = route_of(job.spec);
    return settings;
}

}  // namespace

int run_job(const RunOptions& options)
{
    const auto started = std::chrono::steady_clock::now();
    install_interrupt_handlers();
    // The run's communicators, built once: the world, the ranks of this node, and (in
    // RankLoopSetup) this rank's group.
    const auto world = collectives::mpi::world();
    const auto node = collectives::mpi::split_by_node(*world);
    env::RunEnvironment environment;
    PreparedJob job;
    run_agreed(*world, [&] {
        job = prepare_job(options.job_file, options.overrides, options.job_dir);
        check_gpu_sharing(job.spec);
    });
    // Before the CUDA backend loads: it reads CUDA_VISIBLE_DEVICES (MIG) and the MPS variables.
    std::unique_ptr<GpuSharingSetup> sharing;
    run_agreed(*world, [&] { sharing = std::make_unique<GpuSharingSetup>(job.spec, *node); });
    run_agreed(*world, [&] {
        // The CUDA backend (cuBLAS, NCCL: ~0.09 s, ~228 MB) is loaded only where a GPU may be used.
        const auto cuda = job.spec.device == job::DevicePreference::cpu    ? kernels::CudaProbe::skip
                          : job.spec.device == job::DevicePreference::cuda ? kernels::CudaProbe::load
                                                                           : kernels::CudaProbe::if_driver;
        environment = env::detect_run_environment(options.array, *world, *node, cuda, job.spec.gpus_per_rank);
        environment.device = choose_device(job.spec, environment.device);
        environment.device.task_env = sharing->bind(environment.device);
        // Checked here, before the output is touched: groups form later, collectively.
        placement::group_layout(0, environment.topology.world_size, job.spec.gpus_per_task);
        if (environment.topology.node_count > 1 && !collectives::mpi::threads_may_call_mpi()) {
            SHARDRUN_THROW(UsageError, "running on several nodes needs an MPI library with MPI_THREAD_MULTIPLE (the claim "
                                       "service is a thread of rank 0)");
        }
    });
    // An output in object storage: io/ writes a mirror in the node's scratch, fetched from the bucket here.
    std::unique_ptr<storage::RemoteOutput> remote;
    run_agreed(*world, [&] {
        const storage::RemoteRank rank{static_cast<int>(environment.array.index), environment.topology.world_rank,
                                       environment.topology.local_rank == 0, environment.topology.node_count > 1};
        remote = storage::open_remote_output(job.spec.output.path, rank, options.resume, options.force);
    });
    // Before the output is prepared: a sweep that gained values keeps its finished ids.
    if (options.resume && !options.force) {
        extend_for_resume(*world, job, static_cast<int>(environment.array.index),
                          static_cast<int>(environment.array.count));
    }
    const auto& topo = environment.topology;
    const auto element = placement::array_block(job.task_count(), static_cast<std::uint64_t>(environment.array.index),
                                                static_cast<std::uint64_t>(environment.array.count));
    OutputSession output(*world, job, environment, element, options.resume, options.force, remote.get());

    FailureBudget failures({job.spec.max_failures, job.spec.fail_fast});
    // NVML is loaded only here, by a rank bound to a GPU; its sampler thread lives as long as the loop.
    auto telemetry = gpu::start_rank_telemetry(environment.device, job.spec.telemetry_interval_seconds);
    if (!telemetry.sampler && environment.device.cuda && job.spec.telemetry_interval_seconds > 0 && topo.world_rank == 0) {
        std::cerr << "shardrun: no GPU telemetry (/tasks/gpu_* left out): " << telemetry.why_not << std::endl;
    }
    const gpu::FaultSourceScope fault_source(telemetry.sampler.get());  // quarantine reads the GPU's Xid and ECC reports
    std::unique_ptr<RankLoopSetup> loop;
    run_agreed(*world, [&] {
        auto settings = loop_settings(job, environment, output);
        settings.failures = &failures;
        settings.telemetry = telemetry.sampler.get();
        loop = std::make_unique<RankLoopSetup>(*world, *node, std::move(settings), job.spec.schedule, element,
                                               job.spec.gpus_per_task);
    });
    // A rank that stops responding (SIGSTOP, a hung node) is named by the next rank, which
    // stops the job: the others flush what finished, then the job ends (exit 1). It watches
    // until the end of the run, consolidation included; every rank beats until then.
    collectives::HeartbeatRing heartbeats(
        *world, job.spec.rank_timeout_seconds,
        collectives::allgather_strings(*world, fmt::format("rank {} on {}", topo.world_rank, topo.host)),
        collectives::mpi::threads_may_call_mpi(), [](const std::string& line) {
            std::cerr << "shardrun: " << line << std::endl;
            request_stop();
            std::this_thread::sleep_for(std::chrono::seconds(2));  // the ranks commit what finished
            collectives::mpi::abort_job(exit_task_failed);
        });
    std::unique_ptr<ProgressReporter> reporter;
    std::unique_ptr<ProgressThread> progress_thread;
    if (topo.world_rank == 0) {
        reporter = std::make_unique<ProgressReporter>(options.progress, options.progress_interval_seconds,
                                                      static_cast<std::int64_t>(element.size()),
                                                      static_cast<std::int64_t>(output.committed_count()));
        progress_thread = std::make_unique<ProgressThread>(loop->counters(), *reporter);
    }
    // Quarantine (issue 26, point 3) watches a rank alone on its GPU; a group's members share its tasks' fate.
    std::unique_ptr<DeviceHealth> health;
    if (environment.device.cuda && job.spec.gpus_per_task == 1) {
        const auto* kind = tasks::find_task_kind(job.spec.task);
        health = std::make_unique<DeviceHealth>(environment.device, topo.host, job.spec.gpu_fault_limit,
                                                gpu::device_fault_source(), kind != nullptr && kind->kernel);
        loop->settings().health = health.get();
    }
    auto stats = loop->run(output.sink());
    const auto quarantine_reason = run_given_back(*world, *loop, output.sink(), stats, health.get());
    stats.signal = first_signal();
    loop->finish();

    // One reduction for the questions every rank needs answered at the end: did a drain or a
    // stop close the claims, did a task fail, how many tasks are accounted for (a drain that let
    // every remaining task finish leaves a complete output: that run finished), and did a
    // signal reach any rank (a signal interrupts even a run that was giving up on failures).
    std::array<std::int64_t, 4> ending{claims_closed().load() ? 1 : 0, stats.failed > 0 || !quarantine_reason.empty() ? 1 : 0,
                                       static_cast<std::int64_t>(stats.ok + stats.failed + stats.already_done),
                                       first_signal() != 0 ? 1 : 0};
    world->allreduce(std::span<std::int64_t>(ending), collectives::ReduceOp::sum);
    sharing->finish(*node);  // every task of the job has ended: the MPS daemon goes
    auto stop_reason = stop_reason_of(*world, failures);
    if (stop_reason.empty()) stop_reason = quarantine_reason;  // the same on every rank
    const bool failed = ending[1] != 0;
    const bool incomplete = static_cast<std::uint64_t>(ending[2]) < element.size();
    const bool interrupted = ending[0] != 0 && incomplete && (stop_reason.empty() || ending[3] != 0);
    progress_thread.reset();
    if (reporter) reporter->update(loop->counters().read_progress(), true);
    const auto all_stats = gather_stats(*world, stats);
    output.finish(interrupted, all_stats);
    if (topo.world_rank == 0) {
        RunTotals totals{job.spec.name, element.size(),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                         interrupted, output.path()};
        totals.array_index = environment.array.index;
        totals.array_count = environment.array.count;
        totals.exit_code = interrupted ? exit_interrupted : failed ? exit_task_failed : exit_ok;
        totals.launcher_banner_follows = totals.exit_code != exit_ok && env::open_mpi_banner_follows();
        totals.stop_reason = stop_reason;
        print_summary(options, totals, all_stats);
    }
    return interrupted ? exit_interrupted : failed ? exit_task_failed : exit_ok;
}

}  // namespace shardrun::run
