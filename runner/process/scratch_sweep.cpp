#include "runner/process/scratch_sweep.hpp"

#include <filesystem>
#include <string_view>
#include <vector>

#include "io/layout/output_layout.hpp"
#include "runner/process/process_tree.hpp"

namespace shardrun::process {
namespace {

// The token in a scratch name of this host, ".scratch-<host>-<pid>-<start>-<slot>.<kind>" (the
// slot's running index, live_index.hpp, is one of them), or
// empty: exactly three numbers, so a host whose name extends this one ("node-12" beside
// "node") never matches.
std::string_view scratch_token(std::string_view name, std::string_view prefix)
{
    if (name.substr(0, prefix.size()) != prefix) return {};
    auto rest = name.substr(prefix.size());
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos) return {};
    const auto kind = rest.substr(dot + 1);
    if (kind != "stdout" && kind != "stderr" && kind != "results" && kind != "running") return {};
    rest = rest.substr(0, dot);
    const auto first = rest.find('-');
    const auto second = first == std::string_view::npos ? first : rest.find('-', first + 1);
    if (second == std::string_view::npos || rest.find('-', second + 1) != std::string_view::npos) return {};
    if (rest.find_first_not_of("0123456789-") != std::string_view::npos) return {};
    if (first == 0 || second == first + 1 || second + 1 == rest.size()) return {};
    return rest.substr(0, second);
}

}  // namespace

void remove_dead_scratch(const std::string& tasks_dir, const std::string& host)
{
    std::error_code error;
    std::vector<std::string> dead;
    const auto prefix = io::layout::scratch_prefix(host);
    for (std::filesystem::directory_iterator it(tasks_dir, error), end; !error && it != end; it.increment(error)) {
        const auto name = it->path().filename().string();
        const auto token = scratch_token(name, prefix);
        if (!token.empty() && !rank_token_alive(token)) dead.push_back(it->path().string());
    }
    for (const auto& path : dead) std::filesystem::remove_all(path, error);
}

}  // namespace shardrun::process
