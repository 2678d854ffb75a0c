#include "collectives/communicator.hpp"

#include <algorithm>
#include <cstdint>
#include <span>

namespace shardrun::collectives {

std::vector<std::string> allgather_strings(Communicator& comm, const std::string& mine)
{
    const auto lengths = comm.allgather_value<std::uint64_t>(mine.size());
    const auto longest = *std::max_element(lengths.begin(), lengths.end());
    std::string padded = mine;
    padded.resize(longest);
    std::string all(longest * lengths.size(), '\0');
    comm.allgather(std::span<const char>(padded), std::span<char>(all));
    std::vector<std::string> strings;
    for (std::size_t r = 0; r < lengths.size(); ++r) strings.push_back(all.substr(r * longest, lengths[r]));
    return strings;
}

}  // namespace shardrun::collectives
