#include "runner/cli/command_info.hpp"

#include <iostream>

#include "collectives/mpi/environment.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "runner/cli/common_options.hpp"
#include "runner/env/info_report.hpp"
#include "runner/env/launch_check.hpp"
#include "runner/env/run_environment.hpp"
#include "runner/gpu/nvidia_tools.hpp"
#include "runner/run/agreement.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

void InfoCommand::add_options(po::options_description& options, po::positional_options_description&)
{
    options.add_options()("json", po::bool_switch(&json_), "print one JSON object instead of a table");
    add_array_options(options);
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
        std::cout << (json_ ? env::info_json(environment, rows) : env::info_table(environment, rows) + gpu::mig_report());
    }
    return 0;
}

}  // namespace shardrun::cli
