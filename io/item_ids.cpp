#include "io/item_ids.hpp"

#include <unordered_map>

namespace shardrun::io {
namespace {

template <typename T>
std::optional<std::pair<std::size_t, std::size_t>> first_repeat(const std::vector<T>& values)
{
    std::unordered_map<T, std::size_t> seen;
    seen.reserve(values.size());
    for (std::size_t k = 0; k < values.size(); ++k) {
        const auto [at, fresh] = seen.emplace(values[k], k);
        if (!fresh) return std::make_pair(at->second, k);
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::pair<std::size_t, std::size_t>> first_repeated_id(const ItemIds& ids)
{
    return ids.integer ? first_repeat(ids.ints) : first_repeat(ids.text);
}

std::string id_text(const ItemIds& ids, std::size_t k)
{
    return ids.integer ? std::to_string(ids.ints[k]) : ids.text[k];
}

}  // namespace shardrun::io
