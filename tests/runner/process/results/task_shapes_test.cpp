// A task's own shape of a parameter-sized field, padded to the stored one, and its length.
#include "runner/process/results/task_shapes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

namespace shardrun::process {
namespace {

io::FieldSpec traj()
{
    io::FieldSpec field;
    field.name = "traj";
    field.dtype = io::DType::float32;
    field.shape = {2, 5, 3};  // axis 1 is {epochs}, stored at the largest value 5
    field.length_param = "epochs";
    field.length_axis = 1;
    return field;
}

std::vector<std::byte> bytes_of(const std::vector<float>& values)
{
    std::vector<std::byte> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

std::vector<float> floats_of(const std::vector<std::byte>& bytes)
{
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
}

TEST(TaskShapes, AParameterAxisInTheMiddleIsPaddedPerOuterIndex)
{
    job::ParamMap params;
    params.set("epochs", std::int64_t{2});
    const std::vector<io::FieldSpec> fields{traj()};
    const auto shapes = task_shapes(fields, std::nullopt, &params);
    ASSERT_EQ(shapes[0].shape, (std::vector<std::size_t>{2, 2, 3}));

    // [2, 2, 3]: value = 100 outer + 10 epoch + column.
    std::vector<float> task;
    for (int o = 0; o < 2; ++o) {
        for (int e = 0; e < 2; ++e) {
            for (int c = 0; c < 3; ++c) task.push_back(static_cast<float>(100 * o + 10 * e + c));
        }
    }
    io::TaskValues values{bytes_of(task)};
    pad_to_declared(values, shapes, fields);
    const auto stored = floats_of(values[0]);
    ASSERT_EQ(stored.size(), 30u);
    for (int o = 0; o < 2; ++o) {
        for (int e = 0; e < 5; ++e) {
            for (int c = 0; c < 3; ++c) {
                const auto value = stored[static_cast<std::size_t>(o * 15 + e * 3 + c)];
                if (e < 2) {
                    EXPECT_EQ(value, static_cast<float>(100 * o + 10 * e + c));
                } else {
                    EXPECT_TRUE(std::isnan(value)) << o << " " << e << " " << c;
                }
            }
        }
    }

    append_lengths(values, shapes);
    ASSERT_EQ(values.size(), 2u);
    std::int64_t length = 0;
    std::memcpy(&length, values[1].data(), sizeof length);
    EXPECT_EQ(length, 2);
}

TEST(TaskShapes, AReasonNamingTheFieldGetsTheTasksValue)
{
    job::ParamMap params;
    params.set("epochs", std::int64_t{3});
    const auto shapes = task_shapes({traj()}, std::nullopt, &params);
    EXPECT_EQ(with_length_note("field 'traj': expected 3 values at depth 1, got 4", shapes),
              "field 'traj': expected 3 values at depth 1, got 4; traj's dimension {epochs} is 3 in this task");
    EXPECT_EQ(with_length_note("field 'other': bad", shapes), "field 'other': bad");
}

}  // namespace
}  // namespace shardrun::process
