#include "runner/gpu/telemetry_window.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace shardrun::gpu {
namespace {

Sample make_sample(std::uint64_t mem, std::optional<std::uint64_t> processes, double util, std::optional<std::uint64_t> energy_mj,
              double temp)
{
    return Sample{mem, processes, util, energy_mj, temp};
}

TEST(TelemetryWindow, AggregatesPeakMeanEnergyAndTemperature)
{
    TelemetryWindow window(make_sample(100, 10, 20, 5000, 50), {0, 0}, true);

    window.add(make_sample(300, 30, 80, 7000, 70));
    window.add(make_sample(200, 20, 50, 9500, 60));
    const auto usage = window.usage();

    EXPECT_EQ(usage.mem_peak, 30);  // the processes' peak, not the device's
    EXPECT_EQ(usage.mem_scope, io::GpuMemScope::process);
    EXPECT_DOUBLE_EQ(usage.util_mean, 50.0);
    EXPECT_DOUBLE_EQ(usage.util_peak, 80.0);
    EXPECT_DOUBLE_EQ(usage.energy_j, 4.5);  // (9500 - 5000) mJ
    EXPECT_DOUBLE_EQ(usage.temp_max, 70.0);
    EXPECT_EQ(usage.xid_events, 0);
}

TEST(TelemetryWindow, NoProcessListedFallsBackToDeviceMemory)
{
    TelemetryWindow window(make_sample(100, std::nullopt, 0, 0, 40), {}, false);

    window.add(make_sample(400, std::nullopt, 0, 0, 40));
    const auto usage = window.usage();

    EXPECT_EQ(usage.mem_scope, io::GpuMemScope::device);
    EXPECT_EQ(usage.mem_peak, 400);
    EXPECT_EQ(usage.xid_events, -1);  // events not watched
}

TEST(TelemetryWindow, ProcessListedInSomeSamplesIsPerProcess)
{
    TelemetryWindow window(make_sample(100, std::nullopt, 0, 0, 40), {}, true);  // the task had not started yet

    window.add(make_sample(400, 250, 0, 0, 40));
    const auto usage = window.usage();

    EXPECT_EQ(usage.mem_scope, io::GpuMemScope::process);
    EXPECT_EQ(usage.mem_peak, 250);
}

TEST(TelemetryWindow, EnergyIsUnknownWhereADeviceHasNoCounter)
{
    TelemetryWindow window(make_sample(1, 1, 0, std::nullopt, 40), {}, true);

    window.add(make_sample(1, 1, 0, 100, 40));

    EXPECT_TRUE(std::isnan(window.usage().energy_j));
}

TEST(TelemetryWindow, ShortTaskGetsValuesFromItsStartAndEndSamples)
{
    TelemetryWindow window(make_sample(10, 10, 30, 1000, 45), {}, true);

    window.add(make_sample(10, 10, 50, 1250, 46));

    EXPECT_DOUBLE_EQ(window.usage().util_mean, 40.0);
    EXPECT_DOUBLE_EQ(window.usage().energy_j, 0.25);
}

TEST(TelemetryWindow, FaultsAreTheGrowthOfTheCountersAndTheXidsSeen)
{
    TelemetryWindow window(make_sample(1, 1, 0, 0, 40), {2, 7}, true);
    window.add_xid(79);

    const auto faults = window.faults({5, 7});

    EXPECT_EQ(faults.xid_events, 1);
    EXPECT_EQ(faults.ecc_uncorrected, 3);
    EXPECT_EQ(faults.retired_pages, 0);
    EXPECT_TRUE(faults.any());
    EXPECT_EQ(faults.detail, "Xid 79 (GPU has fallen off the bus), 3 new uncorrected ECC errors");
    EXPECT_EQ(window.usage().xid_events, 1);
}

TEST(TelemetryWindow, UnknownOrResetCountersTellNothing)
{
    TelemetryWindow window(make_sample(1, 1, 0, 0, 40), {-1, 9}, true);

    const auto faults = window.faults({4, 3});  // ECC unknown at the start; pages went down (a driver reload)

    EXPECT_FALSE(faults.any());
    EXPECT_EQ(faults.detail, "");
}

TEST(Combine, SumsMemoryAndEnergyAveragesUtilisationTakesHottest)
{
    const auto combined = combine({DeviceReading{100, 10, 20, 1000, 50}, DeviceReading{200, 30, 60, 3000, 70}});

    EXPECT_EQ(combined.mem_device, 300u);
    EXPECT_EQ(combined.mem_processes, 40u);
    EXPECT_DOUBLE_EQ(combined.util, 40.0);
    EXPECT_EQ(combined.energy_mj, 4000u);
    EXPECT_DOUBLE_EQ(combined.temp_c, 70.0);
}

TEST(Combine, ProcessMemoryWhereAnyDeviceListedOneEnergyOnlyWhereEveryDeviceCounts)
{
    const auto combined = combine({DeviceReading{100, 10, 0, 1, 50}, DeviceReading{200, std::nullopt, 0, std::nullopt, 50}});

    EXPECT_EQ(combined.mem_processes, 10u);
    EXPECT_FALSE(combined.energy_mj.has_value());
}

TEST(Combine, NoDeviceListedAProcess)
{
    const auto combined = combine({DeviceReading{100, std::nullopt, 0, 1, 50}});

    EXPECT_FALSE(combined.mem_processes.has_value());
}

TEST(DescribeXid, NamesKnownXidsAndNumbersOthers)
{
    EXPECT_EQ(describe_xid(48), "Xid 48 (double-bit ECC error)");
    EXPECT_EQ(describe_xid(4242), "Xid 4242");
}

Sample gpm_sample(std::optional<GpmRates> gpm)
{
    auto sample = make_sample(100, 10, 50, 1000, 50);
    sample.gpm = gpm;
    return sample;
}

TEST(TelemetryWindow, GpmMeansWeighIntervalsByLengthAndIgnoreTheOpeningInterval)
{
    // The opening sample's interval ended as the task started: another task's, left out.
    TelemetryWindow window(gpm_sample(GpmRates{99, 99, 99, 99, 5.0}), {0, 0}, true);

    window.add(gpm_sample(GpmRates{90, 40, 60, 30, 3.0}));
    window.add(gpm_sample(GpmRates{10, 20, 0, 10, 1.0}));
    const auto usage = window.usage();

    EXPECT_TRUE(usage.has_gpm());
    EXPECT_DOUBLE_EQ(usage.sm_active, (90 * 3.0 + 10 * 1.0) / 4.0);
    EXPECT_DOUBLE_EQ(usage.sm_occupancy, (40 * 3.0 + 20 * 1.0) / 4.0);
    EXPECT_DOUBLE_EQ(usage.tensor_active, 60 * 3.0 / 4.0);
    EXPECT_DOUBLE_EQ(usage.dram_bw, (30 * 3.0 + 10 * 1.0) / 4.0);
}

TEST(TelemetryWindow, NoGpmOrAnIntervalWithoutItLeavesTheMeansOut)
{
    TelemetryWindow without(gpm_sample(std::nullopt), {0, 0}, true);
    without.add(gpm_sample(std::nullopt));
    EXPECT_FALSE(without.usage().has_gpm());
    EXPECT_TRUE(std::isnan(without.usage().sm_active));

    // A sample GPM missed (a failed read) leaves part of the task unknown: no mean rather than a partial one.
    TelemetryWindow gap(gpm_sample(std::nullopt), {0, 0}, true);
    gap.add(gpm_sample(GpmRates{90, 40, 60, 30, 1.0}));
    gap.add(gpm_sample(std::nullopt));
    EXPECT_FALSE(gap.usage().has_gpm());
}

}  // namespace
}  // namespace shardrun::gpu
