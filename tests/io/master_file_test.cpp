// The master writer on its own: a segment whose results go bad after the run is caught
// while copying (when its results were too big to keep), never copied into the master.
#include "io/master/master_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "io/gather/task_table.hpp"
#include "io/job_output.hpp"
#include "output_test_support.hpp"

namespace shardrun::io {
namespace {

/** Overwrites the stored energy of `task` (expected_value(task, 0, 0)) inside `file`. */
bool change_energy(const std::string& file, std::uint64_t task)
{
    std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(stream)), {});
    const double energy = testing::expected_value(task, 0, 0), changed = energy + 1;
    const auto at = bytes.find(std::string(reinterpret_cast<const char*>(&energy), sizeof energy));
    if (at == std::string::npos) return false;
    stream.seekp(static_cast<std::streamoff>(at));
    stream.write(reinterpret_cast<const char*>(&changed), sizeof changed);
    return true;
}

TEST(MasterFile, ResultsThatFailTheirChecksumWhenCopiedLeaveTheirTasksPending)
{
    const OutputOptions options{testing::scratch_dir() + "/results.h5"};
    const auto m = testing::test_metadata(20);
    const auto lock = prepare_output(options, m);
    auto sink = open_rank_sink(options, m, testing::test_fields(), 0, 1);
    for (std::uint64_t id = 0; id < 20; ++id) {
        sink->record(testing::test_record(id, 0), testing::test_values(id, testing::test_fields()));
        if (id == 9) sink->commit();
    }
    sink->commit();
    sink.reset();
    TaskTable table(20);
    table.verify_results = false;
    table.cache_budget = 0;  // as if the results were too big to keep: they are read again when copied
    table.gather_element(options.path, 0, 0, 20);
    ASSERT_TRUE(change_energy(options.path + ".shards/a0/r0/00000001.h5", 12));
    master::MasterInfo info{m, job_hash(m), Layout::shards, 1.7e9, 1.7e9, true, testing::test_fields(),
                            testing::test_params(20), {}};

    master::write_master(options.path, info, table);

    std::vector<std::uint64_t> pending;
    for (std::uint64_t id = 10; id < 20; ++id) pending.push_back(id);
    EXPECT_EQ(testing::check_master(options.path, 20, pending), "");
    EXPECT_EQ(table.problems.size(), 1u);
}

}  // namespace
}  // namespace shardrun::io
