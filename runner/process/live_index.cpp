#include "runner/process/live_index.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>

namespace shardrun::process {

LiveIndex::LiveIndex(std::string path, const LiveEntry& entry) : path_(std::move(path))
{
    // Written aside and renamed: a reader sees the whole index or none.
    const auto temp = fmt::format("{}.{}.tmp", path_, getpid());
    {
        std::ofstream out(temp, std::ios::trunc);
        out << "stdout=" << entry.stdout_path << "\nstderr=" << entry.stderr_path << "\nattempt=" << entry.attempt
            << "\nhost=" << entry.host << "\n";
        if (!out) {
            std::remove(temp.c_str());
            path_.clear();
            return;
        }
    }
    if (std::rename(temp.c_str(), path_.c_str()) != 0) {
        std::remove(temp.c_str());
        path_.clear();
    }
}

void LiveIndex::remove()
{
    if (path_.empty()) return;
    std::remove(path_.c_str());
    path_.clear();
}

std::optional<LiveEntry> read_live_index(const std::string& path)
{
    std::ifstream in(path);
    if (!in) return std::nullopt;
    LiveEntry entry;
    for (std::string line; std::getline(in, line);) {
        const auto equals = line.find('=');
        if (equals == std::string::npos) continue;
        const auto key = line.substr(0, equals);
        auto value = line.substr(equals + 1);
        if (key == "stdout") entry.stdout_path = std::move(value);
        if (key == "stderr") entry.stderr_path = std::move(value);
        if (key == "attempt") entry.attempt = std::atoi(value.c_str());
        if (key == "host") entry.host = std::move(value);
    }
    if (entry.stdout_path.empty() || entry.stderr_path.empty()) return std::nullopt;
    return entry;
}

}  // namespace shardrun::process
