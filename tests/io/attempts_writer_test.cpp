// /attempts as the master writes it from each task's log (attempts_group.cpp, issue 36 point 4:
// the texts packed in one buffer, no string per attempt): every field lands in its column, an empty
// message is an empty string (a heap object, never HDF5's nil string, which netCDF-C reads as
// NULL), and the logs read back are the logs written.
#include <gtest/gtest.h>

#include "io/attempt_log.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"
#include "io/task_rows/attempts_group.hpp"
#include "output_test_support.hpp"

namespace shardrun::io {
namespace {

/** The variable-length strings of 1-D dataset `name` as HDF5 gives them: nullptr for a nil string. */
std::vector<std::string> raw_texts(hid_t file, const char* name, std::vector<bool>& nil)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file, name, H5P_DEFAULT));
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset.get()));
    std::vector<char*> pointers(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
    const auto type = hdf5::vlen_string_type();
    SHARDRUN_H5_CHECK(H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()));
    std::vector<std::string> out;
    nil.clear();
    for (char* text : pointers) {
        nil.push_back(text == nullptr);
        out.emplace_back(text ? text : "");
        H5free_memory(text);
    }
    return out;
}

TEST(AttemptsWriter, FillsEveryColumnFromTheLogsAndReadsThemBack)
{
    const auto path = testing::scratch_dir() + "/attempts.h5";
    TaskRows block;
    block.assign_pending(10, 4);
    block.attempt_log[0] = encode_attempts({{1, 0, 1.25, 2.5, 0, "", "node-a", false}});
    // Task 11 never ran: no attempt row.
    block.attempt_log[2] = encode_attempts({{1, 143, 3.0, 4.0, 1, "killed by signal 15", "node-b", true},
                                            {2, 0, 5.0, 6.0, 0, "", "node-a", false}});
    block.attempt_log[3] = "1\t2\t7.5\t8.5\t3\tsix fields, no host\n";  // a log written before host existed
    {
        auto file = SHARDRUN_H5_OPEN(File, H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
        AttemptsWriter writer(file.get());
        writer.append(block);
        writer.finish();
    }
    auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    EXPECT_EQ(testing::read_ints(file.get(), "attempts/task"), (std::vector<std::int64_t>{10, 12, 12, 13}));
    EXPECT_EQ(testing::read_ints(file.get(), "attempts/attempt"), (std::vector<std::int64_t>{1, 1, 2, 1}));
    EXPECT_EQ(testing::read_ints(file.get(), "attempts/exit_code"), (std::vector<std::int64_t>{0, 143, 0, 2}));
    EXPECT_EQ(testing::read_ints(file.get(), "attempts/rank"), (std::vector<std::int64_t>{0, 1, 0, 3}));
    EXPECT_EQ(testing::read_ints(file.get(), "attempts/interrupted"), (std::vector<std::int64_t>{0, 1, 0, 0}));
    std::vector<bool> nil;
    EXPECT_EQ(raw_texts(file.get(), "attempts/message", nil),
              (std::vector<std::string>{"", "killed by signal 15", "", "six fields, no host"}));
    EXPECT_EQ(nil, (std::vector<bool>{false, false, false, false})) << "an empty message is \"\", not nil";
    EXPECT_EQ(raw_texts(file.get(), "attempts/host", nil), (std::vector<std::string>{"node-a", "node-b", "node-a", ""}));
    EXPECT_EQ(nil, (std::vector<bool>{false, false, false, false}));

    const auto logs = read_attempt_logs(file.get(), 10, 4);
    ASSERT_EQ(logs.size(), 4u);
    EXPECT_EQ(logs[0], block.attempt_log[0]);
    EXPECT_EQ(logs[1], "");
    EXPECT_EQ(logs[2], block.attempt_log[2]);
    const auto old = decode_attempts(logs[3]);
    ASSERT_EQ(old.size(), 1u);
    EXPECT_EQ(old[0].start, 7.5);
    EXPECT_EQ(old[0].message, "six fields, no host");
}

}  // namespace
}  // namespace shardrun::io
