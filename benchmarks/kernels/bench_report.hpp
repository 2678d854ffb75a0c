#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <set>
#include <string>

namespace shardrun::bench {

/** Prints the usual console table and keeps every run's counters for the ratio table. */
class RecordingReporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override;

    /** Counter `counter` of benchmark `name`, or 0 when it did not run. */
    double value(const std::string& name, const std::string& counter) const;

private:
    std::map<std::string, benchmark::UserCounters> runs_;
    std::set<std::string> medians_;
};

/** The ratios against the anchors measured in the same run (gemm vs OpenBLAS, GB/s vs triad). */
void print_ratios(const RecordingReporter& reporter);

}  // namespace shardrun::bench
