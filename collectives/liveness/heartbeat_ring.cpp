#include "collectives/liveness/heartbeat_ring.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <exception>
#include <sstream>

namespace shardrun::collectives {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int beat_tag = 1;
constexpr int goodbye_tag = 2;

}  // namespace

HeartbeatRing::HeartbeatRing(Communicator& world, double timeout_seconds, std::vector<std::string> member_names,
                             bool threads_may_communicate, std::function<void(const std::string&)> on_silent,
                             Communicator* node)
    : timeout_seconds_(timeout_seconds), member_names_(std::move(member_names)), on_silent_(std::move(on_silent))
{
    // Every rank decides the same way (the arguments agree), so all or none split.
    if (world.size() < 2 || !(timeout_seconds > 0) || !threads_may_communicate) return;
    ring_ = world.split(0, world.rank());
    if (node != nullptr) neighbour_ = std::make_unique<NeighbourProcess>(world, *node);
    thread_ = std::thread([this] { watch(); });
}

HeartbeatRing::~HeartbeatRing()
{
    if (!thread_.joinable()) return;
    // Unwinding an error: the job is about to be aborted, so wait for nobody's goodbye.
    if (std::uncaught_exceptions() > 0) hurry_.store(true);
    leave();
    closing_.store(true);
    thread_.join();
}

void HeartbeatRing::leave()
{
    if (neighbour_) neighbour_->leaving();  // the rank watching this one's process must not report it
    {
        std::lock_guard lock(wake_mutex_);
        leaving_.store(true);
    }
    wake_.notify_all();
}

void HeartbeatRing::stop_watching_processes() noexcept
{
    if (neighbour_) neighbour_->disarm();
}

std::string HeartbeatRing::gone_line() const
{
    const auto now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char when[32];
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &utc);
    std::ostringstream line;
    line << member_names_.at(static_cast<size_t>(neighbour_->world_rank())) << " is gone (" << when
         << "): its process ended without a word (kill -9, the OOM killer, a crash). Ending the job; committed "
            "results are kept, run again with --resume (see docs/troubleshooting.md#rank-silent)";
    return line.str();
}

void HeartbeatRing::watch()
{
    const int size = ring_->size();
    const int next = (ring_->rank() + 1) % size;
    const int previous = (ring_->rank() + size - 1) % size;
    const auto timeout = std::chrono::duration<double>(timeout_seconds_);
    // Several beats per timeout, so one late beat is never mistaken for silence.
    const auto interval = std::chrono::duration_cast<Clock::duration>(
        std::clamp(timeout / 8, std::chrono::duration<double>(0.02), std::chrono::duration<double>(1.0)));
    std::int32_t beat = 0, heard = 0;
    std::vector<Request> sent;
    bool said_goodbye = false, previous_left = false;
    auto last_heard = Clock::now();
    auto next_beat = Clock::now();
    auto last_turn = Clock::now();
    Clock::duration closing_nap = std::chrono::microseconds(50);
    while (!(closing_.load() && said_goodbye && (previous_left || hurry_.load()))) {
        const auto now = Clock::now();
        // This rank was stopped itself (SIGSTOP then SIGCONT, a suspended VM): the silence it
        // sees is its own, so the previous rank gets a fresh window.
        if (now - last_turn > timeout / 2) last_heard = now;
        last_turn = now;
        if (!said_goodbye && leaving_.load()) {
            sent.push_back(ring_->isend(std::span<const std::int32_t>(&beat, 1), next, goodbye_tag));
            said_goodbye = true;
        } else if (!said_goodbye && now >= next_beat) {
            sent.push_back(ring_->isend(std::span<const std::int32_t>(&beat, 1), next, beat_tag));
            next_beat = now + interval;
        }
        std::erase_if(sent, [](Request& request) { return request.test(); });
        while (ring_->iprobe(previous, beat_tag)) {
            ring_->recv(std::span<std::int32_t>(&heard, 1), previous, beat_tag);
            last_heard = now;
        }
        if (!previous_left && ring_->iprobe(previous, goodbye_tag)) {
            ring_->recv(std::span<std::int32_t>(&heard, 1), previous, goodbye_tag);
            previous_left = true;
        }
        if (neighbour_ && neighbour_->gone()) {
            on_silent_(gone_line());
            for (auto& request : sent) request.abandon();
            return;
        }
        if (!previous_left && now - last_heard > timeout) {
            const auto silent = std::chrono::duration<double>(now - last_heard).count();
            std::ostringstream line;
            line << member_names_.at(static_cast<size_t>(previous)) << " stopped responding: no heartbeat for "
                 << static_cast<long>(silent + 0.5) << " s (rank_timeout " << timeout_seconds_
                 << " s); it is stopped, hung or cut off. Ending the job; committed results are kept, run again "
                    "with --resume (see docs/troubleshooting.md#rank-silent)";
            on_silent_(line.str());
            // The job is ending; the beats in flight to a silent rank never complete.
            for (auto& request : sent) request.abandon();
            return;
        }
        if (said_goodbye) {
            // Only the previous rank's goodbye is awaited, and the end of the job waits with
            // it: look often (MPI offers no wait with a timeout).
            std::this_thread::sleep_for(closing_nap);
            closing_nap = std::min<Clock::duration>(closing_nap * 2, std::chrono::milliseconds(2));
        } else {
            std::unique_lock lock(wake_mutex_);
            wake_.wait_for(lock, std::min<Clock::duration>(interval, std::chrono::milliseconds(20)),
                           [this] { return leaving_.load(); });
        }
    }
    for (auto& request : sent) {
        if (hurry_.load()) {
            request.abandon();
        } else {
            request.wait();
        }
    }
}

}  // namespace shardrun::collectives
