#include "runner/run/run_job.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "collectives/liveness/heartbeat_ring.hpp"
#include "collectives/mpi/environment.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "io/layout/output_layout.hpp"
#include "io/layout/run_end_reason.hpp"
#include "io/read/unfinished_run.hpp"
#include "runner/env/launcher_banner.hpp"
#include "runner/env/run_environment.hpp"
#include "runner/errors.hpp"
#include "runner/gpu/sampler_fault_source.hpp"
#include "runner/gpu/telemetry_sampler.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/agreement.hpp"
#include "runner/run/interrupt.hpp"
#include "runner/run/loop/device_health.hpp"
#include "runner/run/loop/failure_budget.hpp"
#include "runner/run/loop/spend_budget.hpp"
#include "runner/run/loop/task_cost.hpp"
#include "runner/run/loop/given_back.hpp"
#include "runner/run/loop/rank_loop_setup.hpp"
#include "runner/run/report/notify.hpp"
#include "runner/run/report/failure_tails.hpp"
#include "runner/run/end_phases.hpp"
#include "runner/run/report/summary.hpp"
#include "runner/run/setup/device_choice.hpp"
#include "runner/run/loop/gpu_admission.hpp"
#include "runner/run/setup/gpu_sharing_setup.hpp"
#include "runner/run/setup/output_session.hpp"
#include "runner/run/setup/prepared_job.hpp"
#include "runner/run/setup/sweep_extension.hpp"
#include "runner/run/task_echo.hpp"
#include "runner/tasks/registry.hpp"
#include "runner/tasks/thread_variables.hpp"

namespace shardrun::run {
namespace {

void print_summary(const RunOptions& options, const RunTotals& totals, const std::vector<RankStats>& stats)
{
    if (options.progress == ProgressMode::json) {
        std::cout << summary_json(totals, stats) << std::endl;
    } else if (options.progress != ProgressMode::quiet) {
        std::cout << format_summary(totals, stats) << std::flush;
    } else if (const auto line = quiet_summary_line(totals, stats); !line.empty()) {
        std::cerr << "shardrun: " << line << "\n";  // -q keeps no summary, but why it stopped is kept
    }
}

/** The first rank's non-empty `mine`, the same on every rank. Collective. */
std::string first_reason(collectives::Communicator& world, const std::string& mine)
{
    for (const auto& reason : collectives::allgather_strings(world, mine)) {
        if (!reason.empty()) return reason;
    }
    return "";
}

/** `run --task ID`: the array element that holds exactly task ID (one per task), on one process. */
env::ArrayPosition task_element(std::uint64_t id, const PreparedJob& job, const env::RunEnvironment& machine)
{
    if (machine.topology.world_size != 1) {
        SHARDRUN_THROW(UsageError, fmt::format("--task runs its tasks on one process; start it without mpirun "
                                               "(it has {} ranks here)", machine.topology.world_size));
    }
    const auto count = job.task_count();
    if (id >= count) {
        SHARDRUN_THROW(UsageError, fmt::format("--task {}: the job has {} task{} (ids 0 to {})", id, count,
                                               count == 1 ? "" : "s", count - 1));
    }
    return env::ArrayPosition{static_cast<long>(id), static_cast<long>(count), "--task"};
}

/** `run --task`: the task's kept stdout, then its recorded result as one JSON line. */
void echo_task(const std::string& tasks_dir, const std::vector<io::FieldSpec>& fields, const io::TaskRecord& record,
               const io::TaskValues& values)
{
    std::ifstream kept(fmt::format("{}/{}/stdout", tasks_dir, record.task_id));
    if (kept) std::cout << kept.rdbuf();
    std::cout << echo_json(record, values, fields) << std::endl;
}

/** The reason of the first rank that gave up on failures; empty when none did. Collective. */
std::string stop_reason_of(collectives::Communicator& world, const FailureBudget& budget)
{
    return first_reason(world, budget.reason());
}

/** Phase 1, the environment: the job read and checked, GPU sharing set up, this rank bound to its device. */
struct Environment {
    PreparedJob job;
    std::unique_ptr<GpuSharingSetup> sharing;
    env::RunEnvironment machine;
};

/** Collective; bad input throws on every rank before anything is written. */
void prepare_environment(const RunOptions& options, collectives::Communicator& world, collectives::Communicator& node,
                         Environment& out)
{
    run_agreed(world, [&] {
        out.job = prepare_job(options.job_file, options.overrides, options.job_dir);
        check_gpu_sharing(out.job.spec);
    });
    // Before the CUDA backend loads: it reads CUDA_VISIBLE_DEVICES (MIG) and the MPS variables.
    run_agreed(world, [&] { out.sharing = std::make_unique<GpuSharingSetup>(out.job.spec, node); });
    run_agreed(world, [&] {
        const auto& spec = out.job.spec;
        // The CUDA backend (cuBLAS, NCCL: ~0.09 s, ~228 MB) is loaded only where a GPU may be used.
        const auto cuda = spec.device == job::DevicePreference::cpu    ? kernels::CudaProbe::skip
                          : spec.device == job::DevicePreference::cuda ? kernels::CudaProbe::load
                                                                       : kernels::CudaProbe::if_driver;
        out.machine = env::detect_run_environment(options.array, world, node, cuda, spec.gpus_per_rank);
        if (options.only_task) out.machine.array = task_element(*options.only_task, out.job, out.machine);
        out.machine.device = choose_device(spec, out.machine.device);
        out.machine.device.task_env = out.sharing->bind(out.machine.device);
        // Checked here, before the output is touched: groups form later, collectively.
        placement::group_layout(0, out.machine.topology.world_size, spec.gpus_per_task);
        if (out.machine.topology.node_count > 1 && !collectives::mpi::threads_may_call_mpi()) {
            SHARDRUN_THROW(UsageError, "running on several nodes needs an MPI library with MPI_THREAD_MULTIPLE (the claim "
                                       "service is a thread of rank 0)");
        }
    });
}

/** Phase 2, the output: the bucket's mirror fetched (a remote output), a grown sweep, the session. */
struct Output {
    std::unique_ptr<storage::RemoteOutput> remote;  ///< null for a local output
    placement::IdRange element;                     ///< this array element's task ids
    std::unique_ptr<OutputSession> session;
};

void open_output(const RunOptions& options, collectives::Communicator& world, Environment& environment, Output& out)
{
    const auto& machine = environment.machine;
    auto& job = environment.job;
    // An output in object storage: io/ writes a mirror in the node's scratch, fetched from the bucket here.
    run_agreed(world, [&] {
        const storage::RemoteRank rank{static_cast<int>(machine.array.index), machine.topology.world_rank,
                                       machine.topology.local_rank == 0, machine.topology.node_count > 1,
                                       static_cast<int>(machine.array.count)};
        out.remote = storage::open_remote_output(job.spec.output.path, rank);
        // Exec tasks may checkpoint (README, "Checkpoints"): their folders are kept in the bucket too.
        if (out.remote && job.spec.task == "exec") out.remote->keep_checkpoints(job.spec.exec.checkpoint_sync_seconds);
    });
    // One writer per element (issue 34): the run's id, the same on every rank, and rank 0 claims the
    // element before anything is said or written about it (a live other writer: exit 2 here). Then
    // the fetch: what the bucket holds once the element is this run's, not before a wait for the
    // claim, during which another run could still commit (and finish) tasks this one would rerun.
    if (out.remote) {
        const bool first = machine.topology.world_rank == 0;
        const auto runs = collectives::allgather_strings(world, first ? storage::writer_run_text(storage::new_writer_run()) : "");
        out.remote->set_writer(storage::parse_writer_run(runs.front()));
        run_agreed(world, [&] {
            if (first) out.remote->take_claim();
        });
        run_agreed(world, [&] { out.remote->fetch(options.resume, options.force); });
    }
    const OutputPlace place{job.spec.output.path, out.remote ? out.remote->local_path() : job.spec.output.path};
    // Before the output is prepared: a sweep that gained values keeps its finished ids.
    if (options.resume && !options.force) {
        extend_for_resume(world, job, place, static_cast<int>(machine.array.index), static_cast<int>(machine.array.count));
    }
    out.element = placement::array_block(job.task_count(), static_cast<std::uint64_t>(machine.array.index),
                                         static_cast<std::uint64_t>(machine.array.count));
    // A run killed with all its ranks said nothing: say it now, before this run's sweep clears its traces.
    if (options.resume && !options.force && machine.topology.world_rank == 0) {
        if (const auto last = io::unfinished_run(place.local, static_cast<int>(machine.array.index))) {
            std::cerr << "shardrun: resuming: " << io::unfinished_run_line(*last) << std::endl;
        }
    }
    out.session = std::make_unique<OutputSession>(
        world, job, machine,
        OutputSession::Settings{.place = place, .element = out.element, .resume = options.resume, .force = options.force,
                                .remote = out.remote.get()});
}

LoopSettings loop_settings(const PreparedJob& job, const env::RunEnvironment& machine, OutputSession& output)
{
    // The rank's CPU share, split among the tasks it runs at once (README, "CPUs and threads").
    const int cpu_threads = std::max(1, machine.cpus.threads / std::max(1, job.spec.slots_per_rank));
    return LoopSettings{
        .kind = job.kind.get(),
        .space = job.space.get(),
        .fields = job.fields,
        .input = job.spec.data.input,
        .device = machine.device,
        .rank = machine.topology.world_rank,
        .host = machine.topology.host,
        .tasks_dir = std::filesystem::absolute(output.tasks_dir()).string(),  // SHARDRUN_TASK_DIR: absolute (issue 11.8)
        .keep_checkpoints = job.spec.exec.keep_checkpoints,
        .retries = job.spec.retries,
        .slots = job.spec.slots_per_rank,
        .cpu_threads = cpu_threads,
        .kernel_threads = tasks::environment_sets_threads() ? 0 : cpu_threads,
        .committed = output.committed(),
        .earlier_attempts = &output.earlier_attempts(),
        .stop = &stop_requested(),
        .claims_closed = &claims_closed(),
        .drain_timeout_seconds = job.spec.drain_timeout_seconds,
        .periodic_commits = output.periodic_commits(),
        .collective_timeout_seconds = job.spec.collective_timeout_seconds,
        .route = route_of(job.spec),
    };
}

/** The output's path on this machine: io/ writes it (a bucket's mirror for a remote output). */
std::string output_local_path(const Environment& environment, const Output& output)
{
    return output.remote ? output.remote->local_path() : environment.job.spec.output.path;
}

/**
 * Phase 3, the services around the loop, in the order they start (and stop in reverse): the
 * failure budget, GPU telemetry and the fault source it feeds, the rank loop with its groups
 * and work source, the heartbeat ring, progress on rank 0, and quarantine's watch.
 */
class Services {
public:
    Services(collectives::Communicator& world, collectives::Communicator& node, const RunOptions& options,
             const Environment& environment, Output& output)
        : failures_({environment.job.spec.max_failures, environment.job.spec.fail_fast}),
          telemetry_(gpu::start_rank_telemetry(environment.machine.device, environment.job.spec.telemetry_interval_seconds)),
          fault_source_(telemetry_.sampler.get())  // quarantine reads the GPU's Xid and ECC reports
    {
        const auto& job = environment.job;
        const auto& machine = environment.machine;
        const auto& topo = machine.topology;
        // NVML is loaded only here, by a rank bound to a GPU; its sampler thread lives as long as the loop.
        if (!telemetry_.sampler && machine.device.cuda && job.spec.telemetry_interval_seconds > 0 && topo.world_rank == 0) {
            std::cerr << "shardrun: no GPU telemetry (/tasks/gpu_* left out): " << telemetry_.why_not << std::endl;
        }
        start_cost(node, job.spec, machine, output);
        run_agreed(world, [&] {
            auto settings = loop_settings(job, machine, *output.session);
            settings.failures = &failures_;
            settings.cost = cost_.get();
            settings.budget = budget_.get();
            settings.telemetry = telemetry_.sampler.get();
            if (options.only_task) {
                settings.on_task_recorded = [dir = settings.tasks_dir, fields = job.fields](const auto& record, const auto& values) {
                    echo_task(dir, fields, record, values);
                };
            }
            if (auto* logs = output.remote ? output.remote->task_logs() : nullptr) {
                // The bucket keeps the failed attempts' output; the element's log ends with their last lines.
                const bool every_attempt = job.spec.exec.keep_files;
                settings.on_attempts_end = [logs, every_attempt](const std::string& dir, const auto& attempts) {
                    logs->keep_attempts(dir, attempts, every_attempt);
                };
                settings.failure_tail_lines = 5;
            }
            loop_ = std::make_unique<RankLoopSetup>(world, node, std::move(settings), job.spec.schedule, output.element,
                                                    job.spec.gpus_per_task);
        });
        // A rank that stops responding (SIGSTOP, a hung node) is named by the next rank, which
        // stops the job: the others flush what finished, then the job ends (exit 1). It watches
        // until the end of the run, consolidation included; every rank beats until then. A rank
        // whose process is gone (kill -9, the OOM killer) is named by the next rank of its node
        // at once, while mpirun still lets the others speak (issue 35, point 7).
        heartbeats_ = std::make_unique<collectives::HeartbeatRing>(
            world, job.spec.rank_timeout_seconds,
            collectives::allgather_strings(world, fmt::format("rank {} on {}", topo.world_rank, topo.host)),
            collectives::mpi::threads_may_call_mpi(),
            [path = output_local_path(environment, output), index = static_cast<int>(machine.array.index)](
                const std::string& line) {
                // A stop came first (a signal here, or another rank's stop): mpirun is ending the job
                // itself, or a rank asked twice ended at once; ranks going is part of it.
                if (first_signal() == SIGTERM || first_signal() == SIGINT || stop_level() == StopLevel::stop) return;
                std::cerr << "shardrun: " << line << std::endl;
                // The job ends without a summary: status and --resume quote this, not a guess at a kill.
                io::record_run_end_reason(path, index, line);
                request_stop();
                std::this_thread::sleep_for(std::chrono::seconds(2));  // the ranks commit what finished
                collectives::mpi::abort_job(exit_task_failed);
            },
            &node);
        if (topo.world_rank == 0) {
            reporter_ = std::make_unique<ProgressReporter>(options.progress, options.progress_interval_seconds,
                                                           static_cast<std::int64_t>(output.element.size()),
                                                           static_cast<std::int64_t>(output.session->committed_count()));
            progress_thread_ = std::make_unique<ProgressThread>(loop_->counters(), *reporter_);
        }
        // Quarantine (issue 26, point 3) watches a rank alone on its GPU; a group's members share its tasks' fate.
        if (machine.device.cuda && job.spec.gpus_per_task == 1) {
            const auto* kind = tasks::find_task_kind(job.spec.task);
            const bool kernel_kind = kind != nullptr && kind->kernel;
            health_ = std::make_unique<DeviceHealth>(machine.device, topo.host, job.spec.gpu_fault_limit,
                                                     gpu::device_fault_source(), kernel_kind);
            loop_->settings().health = health_.get();
        }
    }

    RankLoopSetup& loop() noexcept { return *loop_; }
    DeviceHealth* health() noexcept { return health_.get(); }
    const FailureBudget& failures() const noexcept { return failures_; }
    /** "budget $5.00 reached: ..." on the rank that drained on it; empty otherwise. */
    std::string budget_reason() const { return budget_ ? budget_->reason() : std::string(); }
    /** Every rank reached the run's ending: a neighbour may now exit before this rank. */
    void ending_reached() noexcept { heartbeats_->stop_watching_processes(); }

    /** The progress line's last word, after every rank's loop ended. */
    void stop_progress()
    {
        progress_thread_.reset();
        if (reporter_) reporter_->update(loop_->counters().read_progress(), true);
    }

private:
    /** Energy and money per task (issue 38): RAPL where readable, the job's price, its budget. */
    void start_cost(collectives::Communicator& node, const job::JobSpec& spec, const env::RunEnvironment& machine,
                    Output& output)
    {
        std::string why_not;
        auto rapl = env::RaplEnergy::open(why_not);
        if (spec.budget.unit == job::BudgetSpec::Unit::kwh && !rapl && !telemetry_.sampler &&
            machine.topology.world_rank == 0) {
            // Said, not refused: other ranks may measure; but a kWh budget nothing counts never drains.
            std::cerr << "shardrun: warning: budget in kWh, but rank 0 measures no energy (no GPU telemetry; CPU energy "
                      << why_not << ") (see docs/troubleshooting.md#budget)" << std::endl;
        }
        if (spec.budget.unit == job::BudgetSpec::Unit::usd && spec.price.node_hour <= 0 &&
            !machine.device.cuda && machine.topology.world_rank == 0) {
            // A price per GPU-hour only, and no GPU here: every task costs $0, so the budget never drains.
            std::cerr << "shardrun: warning: budget in dollars, but the price has no node_hour and rank 0 runs on no GPU: "
                         "its tasks cost $0 (give price: {node_hour: ...}) (see docs/troubleshooting.md#budget)" << std::endl;
        }
        if (rapl || spec.price.given()) {
            // The node's tasks at once share its CPUs' energy and its node-hour.
            const int gpus = machine.device.cuda ? spec.gpus_per_rank * spec.gpus_per_task : 0;
            const double share = static_cast<double>(spec.gpus_per_task) /
                                 static_cast<double>(std::max(1, node.size() * spec.slots_per_rank));
            cost_ = std::make_unique<TaskCost>(spec.price, gpus, std::min(1.0, share), std::move(rapl));
        }
        if (spec.budget.given()) {
            const auto& earlier = output.session->earlier_spend();
            const double spent = spec.budget.unit == job::BudgetSpec::Unit::kwh ? earlier.joules / 3.6e6 : earlier.usd;
            budget_ = std::make_unique<SpendBudget>(spec.budget, spent, earlier.tasks);
        }
    }

    FailureBudget failures_;
    std::unique_ptr<TaskCost> cost_;
    std::unique_ptr<SpendBudget> budget_;
    gpu::RankTelemetry telemetry_;
    gpu::FaultSourceScope fault_source_;
    std::unique_ptr<RankLoopSetup> loop_;
    std::unique_ptr<collectives::HeartbeatRing> heartbeats_;
    std::unique_ptr<ProgressReporter> reporter_;
    std::unique_ptr<ProgressThread> progress_thread_;
    std::unique_ptr<DeviceHealth> health_;
};

/**
 * Phase 5, the ending: what every rank needs answered, agreed in one reduction. Did a drain or
 * a stop close the claims, did a task fail, how many tasks are accounted for (a drain that let
 * every remaining task finish leaves a complete output: that run finished), and did a signal
 * reach any rank (a signal interrupts even a run that was giving up on failures).
 */
struct RunEnding {
    bool claims_closed = false;  ///< on any rank
    bool failed = false;         ///< a task failed, or a GPU was quarantined, on any rank
    std::uint64_t accounted = 0; ///< tasks ok, failed or already done, over every rank
    bool signalled = false;      ///< a signal reached any rank
    std::uint64_t finished_now = 0;  ///< tasks that ended ok or failed in this run, over every rank
    bool drained = false;            ///< a SIGUSR1 (a drain, not a stop) reached any rank
    std::uint64_t saved_now = 0;     ///< tasks cut short that wrote to their checkpoint folder in this run
};

/**
 * The tasks cut short on this rank whose checkpoint folder holds a file written since `since`
 * (this run's start): their next attempt goes on from there, so a drain that let no task finish
 * still made progress (no exit 4: a requeue is worth it).
 */
std::uint64_t checkpointed_now(const std::string& tasks_dir, const RankStats& stats, std::filesystem::file_time_type since)
{
    std::uint64_t saved = 0;
    for (const auto& [seconds, id] : stats.cut_short) {
        std::error_code error;
        for (std::filesystem::recursive_directory_iterator it(io::layout::checkpoint_dir(tasks_dir, id), error), end;
             !error && it != end; it.increment(error)) {
            std::error_code unknown;
            if (it->is_regular_file(unknown) && it->last_write_time(unknown) >= since) {
                ++saved;
                break;
            }
        }
    }
    return saved;
}

RunEnding agree_on_ending(collectives::Communicator& world, const RunEnding& mine)
{
    std::array<std::int64_t, 7> sums{mine.claims_closed ? 1 : 0,  mine.failed ? 1 : 0,
                                     static_cast<std::int64_t>(mine.accounted), mine.signalled ? 1 : 0,
                                     static_cast<std::int64_t>(mine.finished_now), mine.drained ? 1 : 0,
                                     static_cast<std::int64_t>(mine.saved_now)};
    world.allreduce(std::span<std::int64_t>(sums), collectives::ReduceOp::sum);
    return RunEnding{sums[0] != 0, sums[1] != 0, static_cast<std::uint64_t>(sums[2]), sums[3] != 0,
                     static_cast<std::uint64_t>(sums[4]), sums[5] != 0, static_cast<std::uint64_t>(sums[6])};
}

/** What rank 0 says once MPI is finalised: the summary, the failed tasks' block, the notifier. */
struct Said {
    bool rank0 = false;
    bool print_phases = false;  ///< rank 0 with --progress json: each end phase's event as it ends
    RunTotals totals;
    std::vector<RankStats> stats;
    bool remote = false;
    env::SchedulerInfo scheduler;
    job::NotifySpec notify;
};

/** Phases 3 to 5 of run_collectively(), once the output is open: services, the loop, the ending. */
int run_with_output(const RunOptions& options, EndPhases& phases, Said& said, collectives::Communicator& world,
                    collectives::Communicator& node, Environment& environment, Output& output,
                    std::filesystem::file_time_type run_start)
{
    Services services(world, node, options, environment, output);

    // Before any rank's first claim: each GPU's admission check (issue 38); a refused GPU's rank takes no task.
    auto admission = admit_rank_gpus(world, environment.job.spec, environment.machine, services.health());

    // Phase 4, the loop: this rank's tasks, then what a quarantined GPU's rank gave back.
    auto& loop = services.loop();
    auto stats = loop.run(output.session->sink());
    auto quarantine_reason = run_given_back(world, loop, output.session->sink(), stats, services.health());
    if (quarantine_reason.empty() && admission.every_rank_refused) {
        quarantine_reason = "every GPU of this job was refused by the admission check (named above), so no task ran; "
                            "--resume runs them once a GPU passes (gpu_admission: off skips the check)";
    }
    stats.gpu_checks = std::move(admission.rows);
    stats.signal = first_signal();
    loop.finish();

    const auto ending = agree_on_ending(
        world, RunEnding{claims_closed().load(), stats.failed > 0 || !quarantine_reason.empty(),
                          stats.ok + stats.failed + stats.already_done, first_signal() != 0, stats.ok + stats.failed,
                          first_signal() == SIGUSR1,
                          checkpointed_now(std::filesystem::absolute(output.session->tasks_dir()).string(), stats, run_start)});
    services.ending_reached();
    environment.sharing->finish(node);  // every task of the job has ended: the MPS daemon goes
    auto stop_reason = stop_reason_of(world, services.failures());
    if (stop_reason.empty()) stop_reason = quarantine_reason;  // the same on every rank
    const bool incomplete = ending.accounted < output.element.size();
    // A budget's drain is an interruption (exit 3): a raised budget resumes it.
    const auto budget_reason = first_reason(world, services.budget_reason());
    const bool budget_drained = stop_reason.empty() && !budget_reason.empty() && incomplete;
    if (budget_drained) stop_reason = budget_reason;
    // The budget's drain counts even when no rank's loop saw the claims close (it started no task at all).
    const bool interrupted =
        incomplete && (budget_drained || (ending.claims_closed && (stop_reason.empty() || ending.signalled)));
    // A drain that let no task finish and no cut-short task checkpoint: a requeue with the same
    // time would cut the same task short again.
    const bool no_progress = interrupted && ending.drained && ending.finished_now == 0 && ending.saved_now == 0;
    int exit_code = no_progress   ? exit_drained_without_progress
                          : interrupted ? exit_interrupted
                          : ending.failed ? exit_task_failed
                                          : exit_ok;
    services.stop_progress();
    auto all_stats = gather_stats(world, stats);
    // The end is timed from the job's last task (README, "The end of a run"); the latest is rank 0's to know.
    said.rank0 = environment.machine.topology.world_rank == 0;
    // The rank whose task ended last committed after it, in its loop: that commit is the last one's.
    const RankStats* last = &stats;
    for (const auto& rank : all_stats) last = rank.last_task_end > last->last_task_end ? &rank : last;
    phases.start("wind_down", last->last_task_end, last->final_commit_seconds);
    // The bucket's verdict: an outage that outlasted SHARDRUN_UPLOAD_PATIENCE (3), another writer (2).
    const auto bucket = output.session->finish(interrupted, all_stats, phases);
    if (bucket.exit_code != 0) exit_code = bucket.exit_code;
    if (said.rank0) {
        RunTotals totals{environment.job.spec.name, output.element.size(), 0, interrupted, output.session->path()};
        totals.array_index = environment.machine.array.index;
        totals.array_count = environment.machine.array.count;
        // The mirror holds the bucket's master when there is one (fetched with the element), else the file itself.
        const bool written = std::filesystem::exists(output_local_path(environment, output));
        totals.merged_exists = totals.array_count > 1 && written;
        totals.results_written = totals.array_count > 1 || written;
        totals.exit_code = exit_code;
        totals.no_progress = no_progress;
        totals.launcher_banner_follows = exit_code != exit_ok && env::open_mpi_banner_follows();
        totals.stop_reason = stop_reason;
        totals.budget_stop = budget_drained;
        totals.bucket_note = bucket.note;
        totals.scheduler = environment.machine.scheduler.name;
        said.totals = std::move(totals);
        said.stats = std::move(all_stats);
        said.remote = output.remote != nullptr;
        said.scheduler = environment.machine.scheduler;
        said.notify = environment.job.spec.notify;
    }
    return exit_code;
}


/**
 * Everything collective of a run: every MPI object it makes is gone when it returns, so that
 * MPI_Finalize (timed) can follow. Fills `said` on rank 0; returns the exit code.
 */
int run_collectively(const RunOptions& options, EndPhases& phases, Said& said)
{
    install_interrupt_handlers();
    const auto run_start = std::filesystem::file_time_type::clock::now();  // a checkpoint written since is progress
    // The run's communicators, built once: the world, the ranks of this node, and (in
    // RankLoopSetup) this rank's group.
    const auto world = collectives::mpi::world();
    const auto node = collectives::mpi::split_by_node(*world);
    said.print_phases = options.progress == ProgressMode::json && world->rank() == 0;

    Environment environment;
    prepare_environment(options, *world, *node, environment);
    Output output;
    open_output(options, *world, environment, output);  // keeps why it failed itself, once it holds the element
    try {
        return run_with_output(options, phases, said, *world, *node, environment, output, run_start);
    } catch (const CollectiveFailure& error) {
        // An agreed failure (a master the full disk refused): only the rank that met it has its
        // message; another rank's empty one must not overwrite the reason it kept.
        if (error.print_here()) output.session->keep_end_reason(error);
        throw;
    } catch (const std::exception& error) {
        // This rank ends before any summary (a full disk): the output keeps why, for status and --resume.
        output.session->keep_end_reason(error);
        throw;
    }
}

}  // namespace

int run_job(const RunOptions& options)
{
    const auto started = std::chrono::steady_clock::now();
    Said said;
    EndPhases phases([&said](const EndPhase& phase) {
        if (said.print_phases) std::cout << end_phase_json(phase) << std::endl;
    });
    const int exit_code = run_collectively(options, phases, said);
    phases.mark("teardown");  // the services stopped: heartbeat goodbyes, the claim service, communicators freed
    if (options.finalize_mpi) {
        collectives::finalize_mpi();
        phases.mark("mpi_finalize");
    }
    // The agreed code is rank 0's to return. mpirun aborts the job at the first process that exits
    // non-zero and kills the rest: another rank returning it first could cut rank 0 off between
    // MPI_Finalize and its summary. srun's and mpirun's own code is then rank 0's.
    if (!said.rank0) return options.finalize_mpi ? exit_ok : exit_code;
    said.totals.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    said.totals.end_phases = phases.phases();
    print_summary(options, said.totals, said.stats);
    // A container's log outlives its machine (CloudWatch, Cloud Logging): it ends with why tasks failed.
    if (said.remote) std::cerr << failed_tasks_block(said.totals.output_path, said.stats) << std::flush;
    // Last, once per run (per array element): the summary above is already out whatever the notifier does.
    const auto ending = notify_ending(exit_code);
    if (said.notify.active()) {
        send_notify(said.notify, ending, notify_json(said.totals, said.stats, ending, {said.scheduler.name, said.scheduler.ids}));
    }
    return exit_code;
}

}  // namespace shardrun::run
