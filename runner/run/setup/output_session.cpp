#include "runner/run/setup/output_session.hpp"

#include <array>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/documented_error.hpp"
#include "io/layout/run_end_reason.hpp"
#include "runner/run/agreement.hpp"
#include "runner/run/error_codes.hpp"
#include "runner/run/error_message.hpp"
#include "runner/run/interrupt.hpp"
#include "runner/run/setup/job_param_source.hpp"
#include "runner/version.hpp"

namespace shardrun::run {
namespace {

// "CUDA runtime" -> "cuda_runtime": attribute names h5py users can type.
std::string attribute_name(const std::string& label)
{
    std::string name;
    for (const char c : label) name += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
    return name;
}

io::JobMetadata make_metadata(collectives::Communicator& world, const PreparedJob& job,
                              const env::RunEnvironment& environment, placement::IdRange element)
{
    io::JobMetadata metadata;
    metadata.job_name = job.spec.name;
    metadata.job_file = job.spec.file;
    metadata.job_text = job.spec.text;
    metadata.params_json = job.spec.resolved_json;
    metadata.shardrun_version = shardrun_version;
    metadata.git_commit = shardrun_git_commit;
    metadata.array_index = static_cast<int>(environment.array.index);
    metadata.array_count = static_cast<int>(environment.array.count);
    metadata.world_size = environment.topology.world_size;
    for (const auto& row : env::gather_rank_rows(world, {environment.topology.world_rank, environment.topology.local_rank,
                                                  environment.topology.local_size, environment.topology.host, ""})) {
        if (metadata.hostnames.empty() || metadata.hostnames.back() != row.host) metadata.hostnames.push_back(row.host);
    }
    for (const auto& [library, version] : environment.build.libraries) metadata.library_versions[attribute_name(library)] = version;
    metadata.task_count = job.task_count();
    metadata.first_task = element.first;
    metadata.end_task = element.last;
    metadata.param_names = job.spec.sweep.names();
    metadata.earlier_jobs = job.earlier_jobs;
    metadata.scheduler = environment.scheduler.name;
    metadata.scheduler_ids = environment.scheduler.ids;
    return metadata;
}

/**
 * Every rank's UploadOutcome, combined: another writer on any rank wins (exit 2), then the tasks
 * not in the bucket over every rank (exit 3: the retry resumes from what reached it).
 */
BucketEnding agree_on_uploads(collectives::Communicator& world, const storage::UploadOutcome& mine)
{
    const nlohmann::json j = {{"missing", mine.missing}, {"since", mine.since}, {"cause", mine.cause}, {"taken", mine.taken_by}};
    std::vector<std::uint64_t> missing;
    std::string since, cause, taken;
    for (const auto& text : collectives::allgather_strings(world, j.dump())) {
        const auto rank = nlohmann::json::parse(text);
        if (taken.empty()) taken = rank["taken"].get<std::string>();
        const auto ids = rank["missing"].get<std::vector<std::uint64_t>>();
        if (!ids.empty() && since.empty()) {
            since = rank["since"].get<std::string>();
            cause = rank["cause"].get<std::string>();
        }
        missing.insert(missing.end(), ids.begin(), ids.end());
    }
    if (!taken.empty()) {
        return {exit_bad_input, fmt::format("ANOTHER WRITER: this array element is now written by {}; this run put "
                                            "nothing more in the bucket (exit 2)",
                                            taken)};
    }
    if (missing.empty()) return {};
    return {exit_interrupted,
            fmt::format("NOT IN THE BUCKET: {} committed task(s) not confirmed in the bucket: {} (unreachable since {}: {}); "
                        "exit 3: a retry resumes from what reached the bucket and runs the others again",
                        missing.size(), storage::id_ranges(missing), since, cause)};
}

}  // namespace

OutputSession::OutputSession(collectives::Communicator& world, const PreparedJob& job,
                             const env::RunEnvironment& environment, Settings settings)
    : world_(world), job_(job), rank_(environment.topology.world_rank), world_size_(environment.topology.world_size),
      remote_(settings.remote), place_(std::move(settings.place))
{
    const auto element = settings.element;
    const bool resume = settings.resume;
    const bool force = settings.force;
    options_.path = place_.local;
    options_.layout = job.spec.output.layout == "single" ? io::Layout::single : io::Layout::shards;
    options_.resume = resume;
    options_.force = force;
    metadata_ = make_metadata(world, job, environment, element);
    run_agreed(world_, [&] {
        if (rank_ != 0) return;
        with_remote_names([&] { lock_ = io::lock_output(options_, metadata_); });
        // From here on the element is this run's: a write that fails (a disk already full when the
        // run starts) is kept in its lock, as one that fails later is (run_job.cpp).
        keeping_end_reason([&] {
            with_remote_names([&] { io::prepare_locked_output(options_, metadata_, lock_); });
            // Now, not only at the end: readers of the running job label its rows with them.
            io::publish_params(options_, metadata_, JobParamSource(job));
            if (remote_) remote_->publish_start(force);
            if (remote_ && force && metadata_.array_count == 1) remote_->delete_task_logs();  // as io/ did locally
        });
    });
    if (resume) load_committed(element);
    run_agreed(world_, [&] {
        keeping_end_reason([&] {
            sink_ = io::open_rank_sink(options_, metadata_, job.fields, world_);
            if (remote_) remote_->start_uploads([] { request_stop(); });  // another run took the element
        });
    });
}

void OutputSession::with_remote_names(const std::function<void()>& step) const
{
    try {
        step();
    } catch (const io::OutputError& error) {
        if (!remote_) throw;
        // The URL, not the mirror; the docs pointer stays.
        if (const char* docs = docs_of(error)) {
            throw Documented<io::OutputError>(docs, error.file(), error.line(), remote_->named(error.what()));
        }
        throw io::OutputError(error.file(), error.line(), remote_->named(error.what()));
    }
}

void OutputSession::keeping_end_reason(const std::function<void()>& step) const
{
    try {
        step();
    } catch (const std::exception& error) {
        keep_end_reason(error);
        throw;
    }
}

void OutputSession::keep_end_reason(const std::exception& error) const
{
    // Bad input (exit 2: the output exists, another run writes it) ends a run that wrote nothing:
    // the lock's text is still the earlier run's, whose own reason must stay.
    if (exit_code_of(error) == exit_bad_input) return;
    const auto reason = user_message(error);
    if (reason.empty()) return;  // another rank's failure, agreed (CollectiveFailure): that rank keeps its own
    io::record_run_end_reason(place_.local, metadata_.array_index, reason);
    if (remote_) remote_->keep_end_reason(reason);
}

OutputSession::~OutputSession() = default;

void OutputSession::load_committed(placement::IdRange element)
{
    // Runs of ids, not one id per task: a complete output is a single run (io::committed_runs).
    std::vector<std::uint64_t> bounds, earlier;  // earlier: (task id, attempts) pairs
    run_agreed(world_, [&] {
        if (rank_ != 0) return;
        std::vector<io::EarlierAttempts> attempts;
        for (const auto& run : io::committed_runs(options_, metadata_, &attempts, &earlier_spend_)) {
            bounds.push_back(run.first);
            bounds.push_back(run.end);
        }
        for (const auto& task : attempts) earlier.insert(earlier.end(), {task.task_id, static_cast<std::uint64_t>(task.attempts)});
    });
    bounds.resize(world_.broadcast_value<std::uint64_t>(bounds.size(), 0));
    world_.broadcast(std::span<std::uint64_t>(bounds), 0);
    earlier.resize(world_.broadcast_value<std::uint64_t>(earlier.size(), 0));
    world_.broadcast(std::span<std::uint64_t>(earlier), 0);
    std::array<double, 3> spend{earlier_spend_.usd, earlier_spend_.joules, static_cast<double>(earlier_spend_.tasks)};
    world_.broadcast(std::span<double>(spend), 0);
    earlier_spend_ = {spend[0], spend[1], static_cast<std::uint64_t>(spend[2])};
    earlier_attempts_.clear();
    for (std::size_t i = 0; i + 1 < earlier.size(); i += 2) earlier_attempts_[earlier[i]] = static_cast<int>(earlier[i + 1]);
    committed_.assign(element.last, false);
    committed_count_ = 0;
    for (std::size_t i = 0; i + 1 < bounds.size(); i += 2) {
        std::fill(committed_.begin() + static_cast<std::ptrdiff_t>(bounds[i]),
                  committed_.begin() + static_cast<std::ptrdiff_t>(bounds[i + 1]), true);
        committed_count_ += bounds[i + 1] - bounds[i];
    }
}

BucketEnding OutputSession::finish(bool interrupted, const std::vector<RankStats>& ranks, EndPhases& phases)
{
    // Exec workers' load per rank, for the master's /ranks (recorded only where workers loaded).
    std::vector<double> startup;
    for (const auto& stats : ranks) startup.push_back(stats.startup_seconds);
    if (std::none_of(startup.begin(), startup.end(), [](double seconds) { return seconds > 0; })) startup.clear();
    // GPUs quarantined in this run (issue 26): kept for `status` and `report`, not only the summary.
    std::vector<std::string> quarantined;
    for (const auto& stats : ranks) {
        if (!stats.quarantine.empty()) quarantined.push_back(fmt::format("rank {}: {}", stats.rank, stats.quarantine));
    }
    // The GPUs' admission checks (issue 38): the master's /gpus.
    std::vector<io::GpuCheckRow> gpus;
    for (const auto& stats : ranks) gpus.insert(gpus.end(), stats.gpu_checks.begin(), stats.gpu_checks.end());
    // run_agreed's reduction returns only once every rank has closed its part: no barrier needed.
    // A remote output: every committed segment is in the bucket before the run ends (a drain's exit 3 included).
    storage::UploadOutcome uploads;
    run_agreed(world_, [&] {
        sink_.reset();
        if (remote_) uploads = remote_->flush_uploads();
    });
    phases.mark("last_commit");  // with the last rank's loop-end commit (run_job); every rank's sink, agreed above
    if (remote_) {
        auto bucket = agree_on_uploads(world_, uploads);
        if (bucket.exit_code != 0) return bucket;  // the bucket gets nothing more from this run
    }
    if (interrupted) {
        // In order, and said so in its summary: not a killed run (io/read/unfinished_run.hpp).
        run_agreed(world_, [&] {
            if (rank_ != 0) return;
            io::record_stopped_run(options_, metadata_);
            if (remote_) remote_->publish_element_files();  // the next machine reads it from the bucket
            if (remote_) remote_->release_claim();          // its retry starts at once
        });
        phases.mark("consolidation");
        return {};
    }
    io::OutputSummary written;
    run_agreed(world_, [&] {
        if (rank_ != 0) return;
        if (remote_) remote_->before_finalize();
        written = io::finalize_output(options_, metadata_, job_.fields, JobParamSource(job_), world_size_, startup, quarantined, gpus);
        if (remote_) remote_->after_finalize();
        if (remote_) remote_->release_claim();
    });
    // The master's write alone, then the rest: manifest, params, segments dropped, the bucket's uploads.
    if (written.master_written) phases.add("master", written.master_seconds, written.master_bytes);
    phases.mark("consolidation");
    return {};
}

}  // namespace shardrun::run
