#include "runner/run/end_phases.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace shardrun::run {
namespace {

// The summary's words for the phases' names (the JSON keeps the names).
std::string phase_words(const std::string& name)
{
    if (name == "wind_down") return "wind-down";
    if (name == "last_commit") return "last commit";
    if (name == "mpi_finalize") return "MPI_Finalize";
    return name;
}

/** Seconds since the Unix epoch: what ranks report as their last task's end. */
double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

void EndPhases::start(const std::string& name, double last_task_end, double handed_on)
{
    const double since = last_task_end > 0 ? std::max(0.0, unix_now() - last_task_end) : 0.0;
    handed_on = std::clamp(handed_on, 0.0, since);
    cursor_ = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(handed_on));
    record({name, since - handed_on, 0});
}

void EndPhases::mark(const std::string& name)
{
    const auto now = Clock::now();
    record({name, std::max(0.0, std::chrono::duration<double>(now - cursor_).count()), 0});
    cursor_ = now;
}

void EndPhases::add(const std::string& name, double seconds, std::uint64_t bytes)
{
    cursor_ += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    record({name, seconds, bytes});
}

void EndPhases::record(EndPhase phase)
{
    phases_.push_back(std::move(phase));
    if (on_phase_) on_phase_(phases_.back());
}

double EndPhases::total_seconds() const noexcept
{
    double total = 0;
    for (const auto& phase : phases_) total += phase.seconds;
    return total;
}

std::string end_phase_json(const EndPhase& phase)
{
    nlohmann::json event = {{"event", "end_phase"}, {"phase", phase.name}, {"seconds", phase.seconds}};
    if (phase.bytes > 0) event["bytes"] = phase.bytes;
    return event.dump();
}

std::string end_phases_line(const std::vector<EndPhase>& phases)
{
    if (phases.empty()) return "";
    double total = 0;
    std::vector<std::string> parts;
    for (const auto& phase : phases) {
        total += phase.seconds;
        auto part = fmt::format("{} {:.2f} s", phase_words(phase.name), phase.seconds);
        if (phase.bytes > 0) {
            part += fmt::format(" ({:.1f} MB, {:.0f} MB/s)", static_cast<double>(phase.bytes) / 1e6,
                                static_cast<double>(phase.bytes) / 1e6 / std::max(phase.seconds, 1e-6));
        }
        parts.push_back(std::move(part));
    }
    return fmt::format("  end: {:.2f} s from the last task's end to MPI_Finalize: {}\n", total, fmt::join(parts, ", "));
}

}  // namespace shardrun::run
