#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace shardrun::storage {

/** The claim's object in the element's folder of the bucket (<output>.shards/a<i>/). */
inline constexpr const char* writer_claim_name = "writer.lock";

/** One run of an array element, as its claim names it. */
struct WriterRun {
    std::string id;       ///< "<host>:<pid>:<8 hex digits>", the same on every rank of the run
    std::string host;     ///< rank 0's host
    std::string started;  ///< UTC, "2026-11-28 22:04:07 UTC"
    /** "host h, started s (run id)": how messages name it. */
    std::string describe() const;
};

/**
 * One writer per array element in the bucket (README, "Results in object storage"): the object
 * <output>.shards/a<i>/writer.lock names the run that writes the element, with a heartbeat
 * counter rank 0 raises every few seconds while the run lives, and `released` once it ended
 * (finished, or drained with its commits uploaded).
 *
 * The rule: a run starts only when the claim is absent, released, or dead (its heartbeat did not
 * move for stale_seconds()); a live claim of another run is refused with exit 2, naming it. So a
 * duplicate container of the same index is refused while the first goes on, and the retry of
 * an element after a spot stop (released) starts at once, after a kill -9 once the dead run's
 * heartbeat has stood still that long. Every rank checks the claim before each upload: a run
 * whose claim another took (it was frozen longer than that, or both started at one instant)
 * uploads nothing more and stops with exit 2.
 *
 * The name ends in .lock: folder_state() leaves such files out, so the mirror's copy is never
 * published over the live claim.
 */
class WriterClaim {
public:
    /**
     * @param object   the claim's rclone address
     * @param element  "array element 3 of s3://b/run.h5", for messages
     * @param me       this run
     */
    WriterClaim(std::string object, std::string element, WriterRun me);

    /**
     * Rank 0, before the run writes anything to the bucket: waits out a claim of another run
     * whose heartbeat may still move, then writes this run's.
     * @throws TransferError exit 2 naming the other run while it lives; exit 1 when the bucket cannot be read
     */
    void take();

    /** Rank 0: this run's claim written again (after --force purged the element). @throws TransferError */
    void renew() { write(false); }

    enum class Check { ours, unreachable, taken };
    /** Any rank, before an upload. `detail`: the cause (unreachable) or the other run (taken). */
    Check check(std::string& detail);

    /** heartbeat_seconds have passed since the last heartbeat. */
    bool beat_due() const;
    /** Rank 0: the heartbeat, when due. False when it could not be written. */
    bool beat_if_due();

    /** Rank 0, at the end of a run whose commits are all in the bucket: a retry may start at once. Errors are ignored. */
    void release();

    /**
     * Any rank that ends the run on an error (a full disk): the claim says it ("ended"), for
     * `status` and the next run's --resume banner, as a local output's lock file does
     * (io/layout/run_end_reason.hpp). Written from memory, not through the scratch folder, which
     * may be the full disk; later heartbeats keep it. Best effort: errors are ignored.
     */
    void keep_end(const std::string& reason);

    /** What the claim take() found said of its run's end, when that run ended on an error (claim_end.hpp). */
    const std::optional<std::string>& previous_claim() const noexcept { return previous_; }

    /** Seconds between heartbeats, and without a moving heartbeat after which a claim counts as dead. */
    static constexpr double heartbeat_seconds = 5;
    static constexpr double stale_seconds = 20;

private:
    void write(bool released);
    /** The claim's next text (the heartbeat raised); under write_mutex_. */
    std::string next_text(bool released);

    std::string object_;
    std::string element_;
    WriterRun me_;
    std::mutex write_mutex_;  // keep_end() on a failing rank's thread, heartbeats on the uploader's
    std::int64_t beat_ = 0;
    double last_beat_ = 0;  // steady seconds of the last heartbeat written
    std::string ended_;     // the error that ends this run, once a rank said it (keep_end, or seen by check)
    std::optional<std::string> previous_;  // the claim text take() found, when its run ended on an error
};

/** This run, on rank 0: a fresh id, this host, now. Rank 0 sends it to the others. */
WriterRun new_writer_run();

/** The text one rank sends the others, and back. */
std::string writer_run_text(const WriterRun& run);
WriterRun parse_writer_run(const std::string& text);

}  // namespace shardrun::storage
