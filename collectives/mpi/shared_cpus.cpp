#include "collectives/mpi/shared_cpus.hpp"

#include <dlfcn.h>
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace shardrun::collectives::mpi {
namespace {

constexpr std::size_t id_size = 40;  // a boot id is 36 characters

/** This kernel's boot id, padded with NULs; empty (all NUL) when unreadable. */
std::array<char, id_size> boot_id()
{
    std::array<char, id_size> id{};
    std::ifstream file("/proc/sys/kernel/random/boot_id");
    std::string text;
    if (std::getline(file, text)) std::memcpy(id.data(), text.data(), std::min(text.size(), id_size - 1));
    return id;
}

/** The CPUs this process may run on (its affinity mask, which a cgroup's cpuset narrows). */
int usable_cpus()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

}  // namespace

bool yield_when_machine_oversubscribed()
{
    if (std::getenv("OMPI_MCA_mpi_yield_when_idle") != nullptr) return false;  // the user chose
    using SetYield = bool (*)(bool);
    const auto set_yield = reinterpret_cast<SetYield>(dlsym(RTLD_DEFAULT, "opal_progress_set_yield_when_idle"));
    int size = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // Every rank takes part (the allgather), whether or not its library can yield: they decide alike.
    struct Seen {
        std::array<char, id_size> boot;
        int cpus;
    };
    const Seen mine{boot_id(), usable_cpus()};
    std::vector<Seen> all(static_cast<std::size_t>(size));
    if (MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS) {
        return false;
    }
    if (mine.boot[0] == '\0' || mine.cpus <= 0) return false;
    int sharing = 0;
    for (const auto& other : all) sharing += other.boot == mine.boot ? 1 : 0;
    if (sharing <= mine.cpus || set_yield == nullptr) return false;
    set_yield(true);
    return true;
}

}  // namespace shardrun::collectives::mpi
