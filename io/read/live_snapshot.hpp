#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>
#include <utility>

/**
 * @file
 * The results of a job that is still running, read as one consistent snapshot
 * (io/README.md, "Reading a running job"): `shardrun table`, `export` and `report` read the
 * snapshot as they read a master; `status` counts the same rows itself.
 */
namespace shardrun::io {

struct ElementManifest;

/** Which result fields a snapshot copies: the reader's need, so large fields are not copied for a table. */
enum class SnapshotFields { none, scalar, all };

/**
 * A master file written from the rows a running job has committed so far, in a private
 * folder under the system's temp directory ($TMPDIR, else /tmp); the folder is removed
 * when the snapshot is destroyed. Nothing under the output is created, changed or locked:
 * every file of the output is opened read-only, and only published files are read (segments
 * get their final name by rename once written and fsynced; the folder of each rank is
 * listed once). Its root attribute `complete` is false.
 */
class LiveSnapshot {
public:
    ~LiveSnapshot();
    LiveSnapshot(LiveSnapshot&& other) noexcept;
    LiveSnapshot& operator=(LiveSnapshot&&) = delete;
    LiveSnapshot(const LiveSnapshot&) = delete;
    LiveSnapshot& operator=(const LiveSnapshot&) = delete;

    /**
     * Takes a snapshot of `path` when a run holds the lock of one of its array elements.
     * @return nullopt when no run is writing `path` (read its master as usual)
     * @throws OutputError  a running element has output.layout single (its one file cannot be
     *                      read while the run has it open: the line says so and what to do),
     *                      or the elements belong to different jobs
     */
    static std::optional<LiveSnapshot> take(const std::string& path, SnapshotFields fields);
    /**
     * The committed rows of a one-element job whose run stopped before it wrote its master
     * (killed, or its node lost): no run holds the lock and `path` does not exist. The note
     * says it stopped and that `run --resume` finishes it.
     * @return nullopt when that is not the case (a master exists, a run holds the lock, an array job)
     */
    static std::optional<LiveSnapshot> take_stopped(const std::string& path, SnapshotFields fields);
    /** take(), else take_stopped(): what table, export and report read when `path` has no master. */
    static std::optional<LiveSnapshot> take_committed(const std::string& path, SnapshotFields fields);

    /** The snapshot, a master file (read it as one). */
    const std::filesystem::path& file() const noexcept { return file_; }
    /** Tasks with a final status (ok, failed, skipped) in the snapshot. */
    std::uint64_t committed() const noexcept { return committed_; }
    std::uint64_t task_count() const noexcept { return task_count_; }
    /** Taken by take_stopped(): no run goes on. */
    bool stopped() const noexcept { return stopped_; }
    /** What table, export and report print on stderr: "shardrun: running: N of T committed (a snapshot; ...)". */
    std::string note() const;

private:
    LiveSnapshot() = default;
    /** The snapshot of `path`'s elements as `manifests` describe them; `retry`: take another (segments moved). */
    static LiveSnapshot write(const std::string& path, const std::vector<std::pair<int, ElementManifest>>& manifests,
                              SnapshotFields fields, int attempt, bool& retry);
    std::filesystem::path folder_, file_;
    std::uint64_t committed_ = 0, task_count_ = 0;
    bool stopped_ = false;  ///< take_stopped(): no run goes on
};

/** "running: N of T committed", the line every reader of a running job prints. */
std::string running_line(std::uint64_t committed, std::uint64_t task_count);

/** Whether `path` is a one-element job (array_count 1) that left segments and no master: a stopped run. */
bool stopped_single_element(const std::string& path);

/**
 * Why a running element of layout single is not read, and what to do, in one sentence
 * (`status` prints it; the snapshot throws it).
 */
std::string single_running_reason(const std::string& path, int array_index);

}  // namespace shardrun::io
