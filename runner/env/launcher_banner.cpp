#include "runner/env/launcher_banner.hpp"

namespace shardrun::env {

bool open_mpi_banner_follows(const EnvLookup& env)
{
    // ORTE's mpirun sets its URI in every rank it starts; srun and singletons do not.
    if (!env("OMPI_MCA_orte_hnp_uri")) return false;
    const auto quiet = env("OMPI_MCA_orte_execute_quiet");
    return !quiet || (*quiet != "1" && *quiet != "true" && *quiet != "yes");
}

}  // namespace shardrun::env
