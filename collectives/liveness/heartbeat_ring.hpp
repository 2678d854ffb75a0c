#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collectives/communicator.hpp"
#include "collectives/liveness/neighbour_process.hpp"

namespace shardrun::collectives {

/**
 * Tells a rank that stopped responding (SIGSTOP, a hung node, a lost network) from one that
 * is merely busy: every rank's background thread sends a small beat to the next rank in a
 * ring and watches the beats of the previous one. A busy rank keeps beating (the thread runs
 * beside its tasks); a stopped or cut-off one falls silent, and after `timeout_seconds` its
 * watcher calls `on_silent` with a line naming it and its host. So one message per rank per
 * interval, whatever the job's size. A rank whose work is done says so (leave()), and its
 * watcher stops expecting beats from it.
 *
 * It also watches the process of the previous rank on the same node, which a kill -9 or the
 * OOM killer ends without a word: that one is reported at once, before mpirun (which ends the
 * whole job about 2 s later) leaves nobody to say it.
 *
 * Construction is collective over `world`; the ring uses its own duplicate of it. The
 * thread calls MPI, so it runs only where threads may (MPI_THREAD_MULTIPLE) and with two or
 * more ranks; otherwise the ring is inert.
 */
class HeartbeatRing {
public:
    /**
     * @param world  every rank of the job
     * @param timeout_seconds  silence after which a rank is reported; 0 or less: no ring
     * @param member_names  each world rank as a message names it ("rank 3 on node-b")
     * @param threads_may_communicate  whether a background thread may call the backend
     * @param on_silent  called once, from the ring's thread, with the line to print
     * @param node  the ranks of this node: the ring's thread also watches the previous one's
     *              process (NeighbourProcess) and reports it at once when it is gone; nullptr: not
     */
    HeartbeatRing(Communicator& world, double timeout_seconds, std::vector<std::string> member_names,
                  bool threads_may_communicate, std::function<void(const std::string&)> on_silent,
                  Communicator* node = nullptr);
    /**
     * Leaves (if not yet), then waits for the previous rank's goodbye so no message is left
     * unmatched; while an exception unwinds (the job is being aborted) it waits for nobody.
     */
    ~HeartbeatRing();
    HeartbeatRing(const HeartbeatRing&) = delete;
    HeartbeatRing& operator=(const HeartbeatRing&) = delete;

    /** This rank's work is done: stop beating and tell the next rank not to expect more. */
    void leave();
    /**
     * Every rank reached the run's ending: from here a neighbour may exit normally first, so its
     * process is no longer watched (the beats go on until leave()).
     */
    void stop_watching_processes() noexcept;

private:
    void watch();
    /** The line for a neighbour whose process is gone. */
    std::string gone_line() const;

    std::unique_ptr<Communicator> ring_;
    double timeout_seconds_ = 0;
    std::vector<std::string> member_names_;
    std::function<void(const std::string&)> on_silent_;
    std::unique_ptr<NeighbourProcess> neighbour_;
    std::atomic<bool> leaving_{false};
    std::atomic<bool> closing_{false};
    std::atomic<bool> hurry_{false};
    std::mutex wake_mutex_;
    std::condition_variable wake_;  // leave() ends the watcher's nap at once
    std::thread thread_;
};

}  // namespace shardrun::collectives
