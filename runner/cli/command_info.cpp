#include "runner/cli/command_info.hpp"

#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collectives/mpi/environment.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "runner/cli/common_options.hpp"
#include "runner/env/info_report.hpp"
#include "runner/env/launch_check.hpp"
#include "runner/env/rapl_energy.hpp"
#include "runner/env/run_environment.hpp"
#include "runner/errors.hpp"
#include "runner/gpu/nvml_report.hpp"
#include "runner/gpu/nvidia_tools.hpp"
#include "runner/run/agreement.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

void InfoCommand::add_options(po::options_description& options, po::positional_options_description&)
{
    options.add_options()("json", po::bool_switch(&json_), "print one JSON object instead of a table");
    add_array_options(options);
}

CommandDoc InfoCommand::doc() const
{
    return {
        .description =
            "Prints what a run started the same way would see: every rank with its node, local rank and the device "
            "it binds to, the scheduler found (Slurm, AWS Batch, Google Batch, ...) and this process's array "
            "element, the GPUs and MIG instances, whether GPU telemetry and CPU energy can be read, and the build's "
            "features (CUDA, NCCL, versions). Start it the way you start `run`, e.g. under `mpirun` or `srun`; "
            "`--json` prints the same for a script.\n\n"
            "Reach for it when a job lands on the wrong devices or nodes, or before the first run on a new cluster "
            "or image, to check that ranks, GPUs and the array position are what the scheduler was asked for.",
        .example = "mpirun -np 2 shardrun info",
        .exit_codes = {
            {exit_ok, "the report was printed"},
            {exit_task_failed, "MPI or a device could not be set up (the message says what)"},
            {exit_bad_input, "usage error, or a launch or environment it cannot run in: an array index or count out "
                             "of range, a scheduler variable that does not parse, srun without PMI support (one line "
                             "naming it)"},
        },
    };
}

void InfoCommand::check(const po::variables_map& values) { overrides_ = read_array_options(values); }

int InfoCommand::run()
{
    env::check_launch();  // a launch MPI_Init cannot survive gets our one line, not Open MPI's 30
    collectives::MpiEnvironment mpi(nullptr, nullptr);
    const auto world = collectives::mpi::world();
    const auto node = collectives::mpi::split_by_node(*world);
    env::RunEnvironment environment;
    run::run_agreed(*world, [&] { environment = env::detect_run_environment(overrides_, *world, *node); });
    const env::RankRow mine{environment.topology.world_rank, environment.topology.local_rank,
                            environment.topology.local_size, environment.topology.host,
                            environment.device.label()};
    const auto rows = env::gather_rank_rows(*world, mine);
    if (environment.topology.world_rank == 0) {
        // GPU telemetry as rank 0's node sees it: NVML loaded here only where CUDA sees a GPU.
        const auto nvml = gpu::probe_nvml(environment.build.cuda_devices, environment.build.no_device_reason);
        std::string rapl_why_not;  // CPU energy per task (issue 38): powercap, often root only
        const auto rapl = env::RaplEnergy::open(rapl_why_not);
        if (json_) {
            auto report = nlohmann::json::parse(env::info_json(environment, rows));
            report["gpu_telemetry"] = nlohmann::json::parse(gpu::nvml_status_json(nvml));
            report["cpu_energy"] = {{"readable", rapl != nullptr}, {"why_not", rapl_why_not},
                                    {"packages", rapl ? rapl->packages() : 0}};
            std::cout << report.dump(2) << "\n";
        } else {
            std::cout << env::info_table(environment, rows) << gpu::mig_report() << gpu::nvml_status_lines(nvml)
                      << (rapl ? fmt::format("  CPU energy  RAPL, {} package(s): /tasks/cpu_energy_j\n", rapl->packages())
                               : fmt::format("  CPU energy  {}; /tasks/cpu_energy_j left out\n", rapl_why_not));
        }
    }
    return 0;
}

}  // namespace shardrun::cli
