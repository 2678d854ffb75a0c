// The claim service's refill round trip (collectives::WorkCounters with every rank posing as
// its own node, so each next_claim() on ranks 1.. is one refill by message to world rank 0)
// against a bare MPI round trip to rank 0 of the same sizes (a 48-byte request, a 24-byte
// reply; rank 0's main thread answering in a blocking receive), contenders interleaved over
// rounds, medians of per-request times. The service runs with its doorbell (the default) and
// without (SHARDRUN_CLAIM_DOORBELL=0: the naps from 20 us to 1 ms of before), with rank 0's main
// thread idle (asleep) and busy (a CPU-bound loop), requests back to back and spaced by a gap
// (the service asleep when each comes). Then the floor of any wake-up (a sleeping thread woken
// by a datagram, no MPI) and rank 0's CPU use while the service waits idle.
// claims.sh runs it over shared memory (btl vader) and TCP; benchmarks/run.d/claim_service.py
// reads the RESULT and CPU lines.
//
// Usage: mpirun -np 2 claim_service_bench [requests per contender] [rounds] [gaps in us, comma-separated]
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "collectives/claims/work_counters.hpp"
#include "collectives/mpi/mpi_communicator.hpp"

namespace {

using namespace shardrun;
using collectives::Communicator;
using Clock = std::chrono::steady_clock;

double now() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const auto n = values.size();
    return n == 0 ? 0.0 : n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Rank 0 waits for the requesters without taking a core (Open MPI's blocking collectives
// spin): asleep, or running a CPU-bound "task" that looks up between slices of ~1 ms.
void wait_for_requesters(Communicator& world, bool busy)
{
    auto done = world.ibarrier();
    volatile double sink = 1.0;
    while (!done.test()) {
        if (!busy) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            continue;
        }
        for (int k = 0; k < 400000; ++k) sink = sink * 1.0000001 + 1e-9;
    }
}

// Requesters: `count` round trips, each after `gap`; rank 1's median seconds, on every rank.
double requester_median(Communicator& world, std::uint64_t count, std::chrono::microseconds gap,
                        const std::function<void()>& round_trip)
{
    std::vector<double> seconds;
    if (world.rank() != 0) {
        for (std::uint64_t k = 0; k < count; ++k) {
            if (gap.count() > 0) std::this_thread::sleep_for(gap);
            const double start = now();
            round_trip();
            seconds.push_back(now() - start);
        }
        auto done = world.ibarrier();  // asleep, as rank 0
        while (!done.test()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return world.broadcast_value(median(seconds), 1);
}

// The anchor: the same request and reply as a refill, rank 0's main thread answering in a
// blocking receive (Open MPI spins in it: the fastest rank 0 can answer).
double bare(Communicator& world, std::uint64_t count, std::chrono::microseconds gap)
{
    auto comm = world.split(0, world.rank());
    std::array<std::int64_t, 9> request{};  // a refill's size (work_counters_state.hpp: Message)
    std::array<std::int64_t, 4> reply{};  // as a refill's: first, count, whether to ask for moves, the burst window
    world.barrier();
    if (comm->rank() == 0) {
        for (std::uint64_t k = 0; k < count * static_cast<std::uint64_t>(comm->size() - 1); ++k) {
            comm->recv(std::span<std::int64_t>(request), collectives::any_source, 1);
            reply[0] = static_cast<std::int64_t>(k);
            comm->send(std::span<const std::int64_t>(reply), static_cast<int>(request[1]), 2);
        }
        auto done = world.ibarrier();
        done.wait();
    }
    return requester_median(world, count, gap, [&] {
        request[1] = comm->rank();
        comm->send(std::span<const std::int64_t>(request), 0, 1);
        comm->recv(std::span<std::int64_t>(reply), 0, 2);
    });
}

// Refills from the claim service: every rank its own node, a claim number per refill.
double service(Communicator& world, bool doorbell, bool busy, std::uint64_t count, std::chrono::microseconds gap)
{
    setenv("SHARDRUN_CLAIM_DOORBELL", doorbell ? "1" : "0", 1);
    auto alone = world.split(world.rank(), 0);
    collectives::WorkCounters counters(world, *alone, true);
    world.barrier();
    if (world.rank() == 0) wait_for_requesters(world, busy);
    const double result = requester_median(world, count, gap, [&] { counters.next_claim(); });
    counters.finish();
    return result;
}

// The floor of any wake-up by message: a thread asleep in ppoll on a UDP socket, woken by a
// datagram from this thread, which spins until the woken thread says so. No MPI; rank 0 alone,
// `gap` between wake-ups as between isolated refills. Median seconds.
double wake_up_floor(std::uint64_t count, std::chrono::microseconds gap)
{
    const int listener = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), sender = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
    std::atomic<std::uint64_t> woken{0};
    std::thread sleeper([&] {
        for (std::uint64_t k = 0; k < count; ++k) {
            pollfd entry{listener, POLLIN, 0};
            ppoll(&entry, 1, nullptr, nullptr);
            char byte = 0;
            recv(listener, &byte, 1, 0);
            woken.store(k + 1, std::memory_order_release);
        }
    });
    std::vector<double> seconds;
    for (std::uint64_t k = 0; k < count; ++k) {
        std::this_thread::sleep_for(gap);
        const double start = now();
        const char byte = 1;
        sendto(sender, &byte, 1, 0, reinterpret_cast<const sockaddr*>(&address), sizeof(address));
        while (woken.load(std::memory_order_acquire) <= k) {
        }
        seconds.push_back(now() - start);
    }
    sleeper.join();
    close(listener);
    close(sender);
    return median(seconds);
}

double cpu_seconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

// Rank 0's process CPU (share of one core) over `seconds` while nobody asks anything: with no
// service (what MPI itself costs), with the doorbell's service, with the naps' service.
void idle_cpu(Communicator& world, double seconds)
{
    const char* names[] = {"no service (MPI alone)", "service, doorbell", "service, naps (before)"};
    for (int mode = 0; mode < 3; ++mode) {
        setenv("SHARDRUN_CLAIM_DOORBELL", mode == 1 ? "1" : "0", 1);
        auto alone = world.split(world.rank(), 0);
        std::unique_ptr<collectives::WorkCounters> counters;
        if (mode > 0) counters = std::make_unique<collectives::WorkCounters>(world, *alone, true);
        world.barrier();
        const double cpu = cpu_seconds(), start = now();
        std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
        const double share = (cpu_seconds() - cpu) / (now() - start);
        if (counters) counters->finish();
        if (world.rank() == 0) std::printf("CPU %-28s %8.4f of a core (rank 0, idle %.1f s)\n", names[mode], share, seconds);
    }
}

}  // namespace

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    {
        auto world = collectives::mpi::world();
        const auto count = static_cast<std::uint64_t>(argc > 1 ? std::atol(argv[1]) : 200);
        const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
        std::vector<long> gaps;
        std::stringstream list(argc > 3 ? argv[3] : "0,2000");
        for (std::string item; std::getline(list, item, ',');) gaps.push_back(std::atol(item.c_str()));
        if (world->size() < 2 || provided < MPI_THREAD_MULTIPLE) {
            if (world->rank() == 0) std::fprintf(stderr, "claim_service_bench: needs 2 ranks and MPI_THREAD_MULTIPLE\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        const char* names[] = {"bare MPI round trip (back to back)", "service, doorbell, rank 0 idle",
                               "service, doorbell, rank 0 busy", "service, naps (before), rank 0 idle",
                               "service, naps (before), rank 0 busy"};
        const char* keys[] = {"bare", "doorbell_idle", "doorbell_busy", "naps_idle", "naps_busy"};
        if (world->rank() == 0) {
            std::printf("claim_service_bench: %d ranks, %llu requests per contender, %d rounds; round trip in us, "
                        "median of round medians; ratio: median over rounds of contender / bare\n",
                        world->size(), static_cast<unsigned long long>(count), rounds);
        }
        for (const long gap_us : gaps) {
            const auto gap = std::chrono::microseconds(gap_us);
            std::vector<std::function<double()>> contenders = {
                // Back to back: Open MPI's spinning receive is the fastest answer, and a gap would
                // measure only how soon a machine under load gives the spinning rank 0 a core again.
                [&] { return bare(*world, count, std::chrono::microseconds(0)); },
                [&] { return service(*world, true, false, count, gap); },
                [&] { return service(*world, true, true, count, gap); },
                [&] { return service(*world, false, false, count, gap); },
                [&] { return service(*world, false, true, count, gap); }};
            std::vector<std::vector<double>> seconds(contenders.size());
            for (int round = 0; round < rounds; ++round) {
                for (std::size_t k = 0; k < contenders.size(); ++k) {
                    const auto which = (k + static_cast<std::size_t>(round)) % contenders.size();
                    seconds[which].push_back(contenders[which]());
                }
            }
            if (world->rank() != 0) continue;
            std::printf("gap %ld us between requests\n", gap_us);
            for (std::size_t c = 0; c < contenders.size(); ++c) {
                std::vector<double> ratios;
                for (int r = 0; r < rounds; ++r) ratios.push_back(seconds[c][r] / seconds[0][r]);
                std::printf("   %-40s %10.1f us %8.2f x bare\n", names[c], 1e6 * median(seconds[c]), median(ratios));
                std::printf("RESULT %s %ld %.3f %.4f\n", keys[c], gap_us, 1e6 * median(seconds[c]), median(ratios));
            }
            std::fflush(stdout);
        }
        if (world->rank() == 0) {
            for (const long gap_us : gaps) {
                std::printf("FLOOR %ld %.3f us: a thread asleep in ppoll woken by a datagram, %ld us apart (no MPI)\n",
                            gap_us, 1e6 * wake_up_floor(count, std::chrono::microseconds(gap_us)), gap_us);
            }
        }
        world->barrier();
        idle_cpu(*world, 1.0);
    }
    MPI_Finalize();
    return 0;
}
