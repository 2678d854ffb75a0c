#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shardrun::env {

/**
 * The CPUs' energy counters (Linux powercap, Intel RAPL and AMD's): one energy_uj per package,
 * /sys/class/powercap/intel-rapl:N (SHARDRUN_POWERCAP_ROOT for another root: the tests'). Often
 * readable by root only (since Linux 5.10), and absent in most containers and VMs.
 */
class RaplEnergy {
public:
    /** The packages' counters, or null and why not ("not readable here: ..."). */
    static std::unique_ptr<RaplEnergy> open(std::string& why_not);

    /** Every package's counter now, in µJ. */
    std::vector<std::uint64_t> read() const;
    /** Joules from `before` to `after`, across a counter's wrap at its max_energy_range_uj. */
    double joules_between(const std::vector<std::uint64_t>& before, const std::vector<std::uint64_t>& after) const;
    std::size_t packages() const noexcept { return files_.size(); }

private:
    std::vector<std::string> files_;
    std::vector<std::uint64_t> ranges_;  ///< max_energy_range_uj of each package; 0: unknown
};

}  // namespace shardrun::env
