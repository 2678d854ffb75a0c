// CPU energy per task (issue 38, point 3): the powercap packages' counters, read at a task's
// start and end.
#include "runner/env/rapl_energy.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace shardrun::env {
namespace {

bool read_number(const std::string& path, std::uint64_t& value)
{
    std::ifstream in(path);
    return static_cast<bool>(in >> value);
}

/** "intel-rapl:0", not a sub-zone ("intel-rapl:0:0", a package's core or DRAM, counted in it). */
bool is_package(const std::string& name)
{
    return name.rfind("intel-rapl:", 0) == 0 && std::count(name.begin(), name.end(), ':') == 1;
}

}  // namespace

std::unique_ptr<RaplEnergy> RaplEnergy::open(std::string& why_not)
{
    const char* root_env = std::getenv("SHARDRUN_POWERCAP_ROOT");
    const std::filesystem::path root = root_env != nullptr && *root_env != '\0' ? root_env : "/sys/class/powercap";
    std::error_code error;
    std::vector<std::string> zones;
    for (const auto& entry : std::filesystem::directory_iterator(root, error)) {
        if (is_package(entry.path().filename().string())) zones.push_back(entry.path().string());
    }
    if (error || zones.empty()) {
        why_not = "not readable here: no RAPL package under " + root.string();
        return nullptr;
    }
    std::sort(zones.begin(), zones.end());
    std::unique_ptr<RaplEnergy> rapl(new RaplEnergy());
    for (const auto& zone : zones) {
        std::uint64_t value = 0, range = 0;
        if (!read_number(zone + "/energy_uj", value)) {
            why_not = "not readable here: " + zone + "/energy_uj (root only since Linux 5.10)";
            return nullptr;
        }
        read_number(zone + "/max_energy_range_uj", range);
        rapl->files_.push_back(zone + "/energy_uj");
        rapl->ranges_.push_back(range);
    }
    return rapl;
}

std::vector<std::uint64_t> RaplEnergy::read() const
{
    std::vector<std::uint64_t> values(files_.size(), 0);
    for (std::size_t i = 0; i < files_.size(); ++i) read_number(files_[i], values[i]);
    return values;
}

double RaplEnergy::joules_between(const std::vector<std::uint64_t>& before, const std::vector<std::uint64_t>& after) const
{
    double microjoules = 0;
    for (std::size_t i = 0; i < std::min({before.size(), after.size(), ranges_.size()}); ++i) {
        if (after[i] >= before[i]) {
            microjoules += static_cast<double>(after[i] - before[i]);
        } else if (ranges_[i] > before[i]) {
            microjoules += static_cast<double>(ranges_[i] - before[i] + after[i]);  // wrapped once
        }
    }
    return microjoules / 1e6;
}

}  // namespace shardrun::env
