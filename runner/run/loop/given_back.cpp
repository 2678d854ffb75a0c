#include "runner/run/loop/given_back.hpp"

#include <fmt/format.h>

#include <sstream>

#include "runner/gpu/quarantine.hpp"

namespace shardrun::run {
namespace {

// Passes are bounded anyway: each one needs a new device fault, and faults end in quarantine.
constexpr int max_passes = 64;

}  // namespace

std::string encode_batches(const std::vector<placement::IdBatch>& batches)
{
    std::string text;
    for (const auto& b : batches) text += fmt::format("{}:{}:{};", b.first, b.count, b.stride);
    return text;
}

std::vector<placement::IdBatch> decode_batches(const std::string& text)
{
    std::vector<placement::IdBatch> batches;
    std::stringstream stream(text);
    for (std::string item; std::getline(stream, item, ';');) {
        placement::IdBatch b;
        char colon = 0;
        std::stringstream fields(item);
        fields >> b.first >> colon >> b.count >> colon >> b.stride;
        if (b.count > 0) batches.push_back(b);
    }
    return batches;
}

std::string run_given_back(collectives::Communicator& world, RankLoopSetup& loop, io::ResultSink& sink,
                           RankStats& stats, const DeviceHealth* health)
{
    for (int pass = 0; pass < max_passes; ++pass) {
        const bool quarantined = health != nullptr && health->quarantined();
        const auto all = collectives::allgather_strings(world, (quarantined ? "q" : "h") + encode_batches(stats.given_back));
        std::vector<bool> rank_quarantined;
        std::vector<std::pair<int, placement::IdBatch>> back;  // (giver, batch)
        std::uint64_t tasks = 0;
        for (std::size_t r = 0; r < all.size(); ++r) {
            rank_quarantined.push_back(!all[r].empty() && all[r][0] == 'q');
            for (const auto& b : decode_batches(all[r].substr(1))) {
                back.emplace_back(static_cast<int>(r), b);
                tasks += b.count;
            }
        }
        if (back.empty()) return "";
        if (!gpu::some_rank_healthy(rank_quarantined)) {
            return fmt::format("every GPU of this job was quarantined (named above), so {} task{} could not run", tasks,
                               tasks == 1 ? "" : "s");
        }
        const auto* closed = loop.settings().claims_closed != nullptr ? loop.settings().claims_closed : loop.settings().stop;
        // Every rank agrees on the closing through WorkCounters' stop level; what is left waits for --resume.
        if (closed != nullptr && world.allreduce_value<std::int32_t>(closed->load() ? 1 : 0, collectives::ReduceOp::max) != 0) {
            return "";
        }
        std::vector<int> healthy;
        for (std::size_t r = 0; r < rank_quarantined.size(); ++r) {
            if (!rank_quarantined[r]) healthy.push_back(static_cast<int>(r));
        }
        std::vector<placement::IdBatch> mine;
        std::size_t turn = 0;
        for (const auto& [giver, batch] : back) {
            // Another rank than the one whose GPU failed the task, where there is one.
            int to = healthy[turn++ % healthy.size()];
            if (to == giver && healthy.size() > 1) to = healthy[turn++ % healthy.size()];
            if (to == world.rank()) mine.push_back(batch);
        }
        stats.given_back.clear();
        const auto source = make_list_source(std::move(mine));
        stats.merge(loop.run(sink, source.get()));
    }
    return "";
}

}  // namespace shardrun::run
