#pragma once

#include <vector>

#include "io/result_sink.hpp"

namespace shardrun::run {

/** Keeps records in memory: for tests of the scheduling that need no file. */
class MemorySink : public io::ResultSink {
public:
    void record_locked(const io::TaskRecord& record, const io::TaskValues& values) override
    {
        records.push_back(record);
        this->values.push_back(values);
    }
    void commit_locked() override { ++commits; }

    std::vector<io::TaskRecord> records;
    std::vector<io::TaskValues> values;
    int commits = 0;
};

}  // namespace shardrun::run
