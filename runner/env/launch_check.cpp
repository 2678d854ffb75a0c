#include "runner/env/launch_check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>
#include <vector>

#include "base/documented_error.hpp"
#include "runner/env/scheduler.hpp"
#include "runner/errors.hpp"

namespace shardrun::env {

std::string launch_problem(const EnvLookup& env, const std::function<std::string()>& mpi_plugins)
{
    if (!env("SLURM_STEP_ID") || !env("SLURM_JOB_ID")) return {};
    if (env("PMIX_RANK") || env("OMPI_COMM_WORLD_SIZE")) return {};  // srun --mpi=pmix, or mpirun's ranks
    const auto type = env("SLURM_MPI_TYPE").value_or("none");
    const auto offered = mpi_plugins();
    return fmt::format("started by srun with --mpi={} in Slurm job {}, but this Open MPI starts only with PMIx: "
                       "use srun --mpi=pmix{} or mpirun inside the allocation",
                       type, *env("SLURM_JOB_ID"),
                       offered.empty() ? std::string() : fmt::format(" (srun --mpi=list offers: {})", offered));
}

std::string srun_mpi_plugins()
{
    // `srun --mpi=list` prints "MPI plugin types are..." and one name per line (some versions
    // add "specific pmix plugin versions available: ..."); only the plain names are kept.
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen("timeout 5 srun --mpi=list 2>&1", "r"), pclose);
    if (!pipe) return {};
    std::string text;
    std::array<char, 256> buffer{};
    while (fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr) text += buffer.data();
    static const std::regex name(R"(^\s*(?:srun:\s*)?([a-z][a-z0-9_]*)\s*$)");
    std::vector<std::string> names;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_match(line, m, name) && m[1] != "mpi") names.push_back(m[1]);
    }
    return fmt::format("{}", fmt::join(names, ", "));
}

void check_launch()
{
    const auto env = process_env();
    // Every task of the step sees the same; the first says it, so the user reads one line.
    const bool first = detect_scheduler(env).launcher_rank.value_or(0) == 0;
    const auto problem = launch_problem(env, [first] { return first ? srun_mpi_plugins() : std::string(); });
    if (problem.empty()) return;
    if (!first) std::exit(exit_bad_input);
    SHARDRUN_THROW_DOCUMENTED(UsageError, "docs/troubleshooting.md#srun-without-pmix", problem);
}

}  // namespace shardrun::env
