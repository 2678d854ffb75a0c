#pragma once

// @internal The claim service's burst window (claim_service.cpp): how long it keeps looking for
// the next message after answering one, before it sleeps until its doorbell rings.

#include <algorithm>
#include <chrono>

namespace shardrun::collectives {

/**
 * Learns the pace of a burst of refills on this transport. A rank whose claims come back to back
 * sends its next refill one round trip after the service's answer: over shared memory a few
 * microseconds, over TCP 25-50 us, more than the fixed 20 us window of before, so every refill of
 * a TCP burst found the service asleep and paid a wake-up (issue 36, point 6). The window is 1.5 x
 * the smoothed gap between an answer and the same rank's next refill, counted only for gaps below
 * `longest` (isolated refills leave it alone), between `shortest` (about a wake-up's cost) and
 * `longest`: looking costs the service at most that much CPU per answer, asleep it costs nothing.
 */
class BurstWindow {
public:
    using Duration = std::chrono::nanoseconds;
    static constexpr Duration shortest = std::chrono::microseconds(20);
    static constexpr Duration longest = std::chrono::microseconds(250);

    Duration window() const noexcept { return std::clamp(smoothed_ * 3 / 2, shortest, longest); }

    /** A rank's refill came `gap` after the service answered its previous one. */
    void note_gap(Duration gap) noexcept
    {
        if (gap >= longest) return;  // an isolated refill: its pace says nothing of a burst's
        smoothed_ = smoothed_.count() == 0 ? gap : (smoothed_ * 3 + gap) / 4;
    }

private:
    Duration smoothed_{0};
};

}  // namespace shardrun::collectives
