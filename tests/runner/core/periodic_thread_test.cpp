#include "runner/core/periodic_thread.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace shardrun::core {
namespace {

using namespace std::chrono_literals;

TEST(PeriodicThread, TicksAtOnceThenStopsWithoutWaitingOutAnHourLongPeriod)
{
    std::atomic<int> ticks{0};
    {
        PeriodicThread thread(std::chrono::hours(1), [&] {
            ++ticks;
            return true;
        });
        while (ticks.load() == 0) std::this_thread::yield();
    }  // a wait for the period would hang here until ctest's timeout
    EXPECT_EQ(ticks.load(), 1);
}

TEST(PeriodicThread, ATickThatReturnsFalseIsTheLast)
{
    std::atomic<int> ticks{0};
    PeriodicThread thread(1ms, [&] { return ++ticks < 3; });
    while (ticks.load() < 3) std::this_thread::yield();
    thread.stop();
    thread.stop();  // idempotent
    EXPECT_EQ(ticks.load(), 3);
}

}  // namespace
}  // namespace shardrun::core
