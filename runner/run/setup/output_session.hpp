#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/job_output.hpp"
#include "io/layout/output_layout.hpp"
#include "runner/env/run_environment.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/rank_stats.hpp"
#include "runner/run/end_phases.hpp"
#include "runner/run/setup/output_place.hpp"
#include "runner/run/setup/prepared_job.hpp"
#include "runner/storage/remote_output.hpp"

namespace shardrun::run {

/** What the bucket did not get (an output in object storage), agreed over every rank by finish(). */
struct BucketEnding {
    int exit_code = 0;  ///< 0: everything is there; 3: an outage outlasted the patience; 2: another run writes the element
    std::string note;   ///< the summary's line about it
};

/**
 * The results file of one run, seen from one rank: prepares (and locks) the output on
 * rank 0, learns on resume which tasks are already committed, opens this rank's sink, and
 * at the end writes the master file. Construction and finish() are collective.
 */
class OutputSession {
public:
    struct Settings {
        OutputPlace place;                         ///< io/ writes place.local; messages and the summary name place.user
        placement::IdRange element;                ///< this array element's task ids
        bool resume = false;
        bool force = false;
        storage::RemoteOutput* remote = nullptr;  ///< the output in object storage (place.local is its mirror), or nullptr
    };

    /** @param world  every rank of the run; also the communicator of layout single's MPI-IO */
    OutputSession(collectives::Communicator& world, const PreparedJob& job, const env::RunEnvironment& environment,
                  Settings settings);
    ~OutputSession();

    /** Ids committed by earlier runs (indexed by task id), or nullptr when none. */
    const std::vector<bool>* committed() const noexcept { return committed_count_ ? &committed_ : nullptr; }
    std::uint64_t committed_count() const noexcept { return committed_count_; }
    /** Attempts earlier runs made of tasks not committed ok (resume): the next attempt numbers after them. */
    const std::unordered_map<std::uint64_t, int>& earlier_attempts() const noexcept { return earlier_attempts_; }
    /** What earlier runs spent (resume; the same on every rank): a budget counts it. */
    const io::EarlierSpend& earlier_spend() const noexcept { return earlier_spend_; }
    io::ResultSink& sink() noexcept { return *sink_; }
    /** <output.path>.tasks: exec tasks' directories (stdout, stderr, result.json). */
    std::string tasks_dir() const { return io::layout::tasks_dir(options_.path).string(); }
    /** output.path as the user wrote it (a bucket URL for a remote output). */
    const std::string& path() const noexcept { return place_.user; }
    /** Shards commit per rank whenever they like; the single file commits collectively, so once at the end. */
    bool periodic_commits() const noexcept { return options_.layout == io::Layout::shards; }

    /**
     * Closes the sink and, unless interrupted, writes the master file on rank 0. Collective.
     * A remote output whose segments did not all reach the bucket (or whose element another run
     * took) ends there: nothing more goes up, and the BucketEnding says why.
     * @param ranks  on rank 0, every rank's stats (gather_stats): their start-up goes to /ranks
     * @param phases  marked as each phase ends: last_commit, then master and consolidation (or
     *                consolidation alone: an interrupted run's record), as far as the run gets
     */
    BucketEnding finish(bool interrupted, const std::vector<RankStats>& ranks, EndPhases& phases);

    /**
     * Keeps why this rank ends on `error` (a full disk) where `status` and the next run's
     * --resume banner find it: the element's lock file (io/layout/run_end_reason.hpp) and, for an
     * output in a bucket, the element's writer claim. Only while this run holds the element
     * (construction took its lock); an error that says nothing (another rank's failure, agreed)
     * is not kept, so it cannot hide that rank's. Best effort.
     */
    void keep_end_reason(const std::exception& error) const;

private:
    void load_committed(placement::IdRange element);
    /** Runs `step`; an io::OutputError it throws names the bucket's URL instead of the mirror's path. */
    void with_remote_names(const std::function<void()>& step) const;
    /** Runs `step`; what it throws is kept (keep_end_reason) and thrown on. */
    void keeping_end_reason(const std::function<void()>& step) const;

    collectives::Communicator& world_;
    const PreparedJob& job_;
    int rank_ = 0;
    int world_size_ = 1;
    io::OutputOptions options_;
    io::JobMetadata metadata_;
    io::OutputLock lock_;
    std::vector<bool> committed_;
    std::uint64_t committed_count_ = 0;
    std::unordered_map<std::uint64_t, int> earlier_attempts_;
    io::EarlierSpend earlier_spend_;
    std::unique_ptr<io::ResultSink> sink_;
    storage::RemoteOutput* remote_ = nullptr;
    OutputPlace place_;
};

}  // namespace shardrun::run
