#include "runner/process/results/result_npy.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "tests/support/temp_dir.hpp"

namespace shardrun::process {
namespace {

using testing::TempDir;

/** A .npy file as numpy writes it: magic, version, header length, dict padded to 64 bytes, data. */
std::string npy(const std::string& dict, const std::string& data, int major = 1)
{
    std::string header = dict;
    const std::size_t prefix = major == 1 ? 10 : 12;
    while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string out = "\x93NUMPY";
    out += static_cast<char>(major);
    out += '\0';
    const auto length = header.size();
    out += static_cast<char>(length & 0xff);
    out += static_cast<char>((length >> 8) & 0xff);
    if (major > 1) out += std::string(2, '\0');
    return out + header + data;
}

std::string floats(std::initializer_list<float> values)
{
    std::string bytes(values.size() * sizeof(float), '\0');
    std::memcpy(bytes.data(), values.begin(), bytes.size());
    return bytes;
}

std::string reason_of(const std::variant<std::vector<std::byte>, std::string>& result)
{
    const auto* reason = std::get_if<std::string>(&result);
    return reason != nullptr ? *reason : "";
}

const io::FieldSpec grid{"grid", io::DType::float32, {2, 2}, ""};

TEST(ReadNpyField, ReadsEveryFormatVersion)
{
    TempDir dir;
    for (const int major : {1, 2, 3}) {
        std::ofstream(dir.file("grid.npy"), std::ios::binary)
            << npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", floats({1, 2, 3, 4}), major);

        const auto result = read_npy_field(dir.file("grid.npy"), grid, grid.shape);

        ASSERT_EQ(reason_of(result), "") << major;
        const auto& bytes = std::get<std::vector<std::byte>>(result);
        float values[4];
        std::memcpy(values, bytes.data(), sizeof values);
        EXPECT_EQ(values[3], 4.0f);
    }
}

TEST(ReadNpyField, TakesTheShortChunkItIsGiven)
{
    TempDir dir;
    std::ofstream(dir.file("grid.npy"), std::ios::binary)
        << npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }", floats({5, 6}));

    const auto result = read_npy_field(dir.file("grid.npy"), grid, {1, 2});

    EXPECT_EQ(reason_of(result), "");
}

TEST(ReadNpyField, RefusesAWrongDtypeShapeOrOrder)
{
    TempDir dir;
    const std::pair<std::string, std::string> cases[] = {
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", "has dtype '<f8', the field is declared float32"},
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", "is big-endian ('>f4')"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", "is in Fortran order"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", "has shape (4,), the task must write (2, 2)"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 2), }", "only a plain dtype is allowed"},
        {"{'descr': '<f4', 'shape': (2, 2), }", "lacks 'descr', 'fortran_order' or 'shape'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -2), }", "tuple of non-negative integers"},
    };
    for (const auto& [dict, fragment] : cases) {
        std::ofstream(dir.file("grid.npy"), std::ios::binary) << npy(dict, floats({1, 2, 3, 4}));

        const auto reason = reason_of(read_npy_field(dir.file("grid.npy"), grid, grid.shape));

        EXPECT_NE(reason.find(fragment), std::string::npos) << dict << " -> " << reason;
        EXPECT_EQ(reason.rfind("results field 'grid': grid.npy ", 0), 0u) << reason;
    }
}

TEST(ReadNpyField, RefusesTruncatedOrOversizedFiles)
{
    TempDir dir;
    const auto header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
    std::ofstream(dir.file("short.npy"), std::ios::binary) << npy(header, floats({1, 2, 3}));
    std::ofstream(dir.file("long.npy"), std::ios::binary) << npy(header, floats({1, 2, 3, 4, 5}));
    std::ofstream(dir.file("cut.npy"), std::ios::binary) << npy(header, "").substr(0, 20);
    std::ofstream(dir.file("text.npy"), std::ios::binary) << "[[1, 2], [3, 4]]";

    EXPECT_NE(reason_of(read_npy_field(dir.file("short.npy"), grid, grid.shape)).find("holds 12 bytes of data, its shape needs 16"),
              std::string::npos);
    EXPECT_NE(reason_of(read_npy_field(dir.file("long.npy"), grid, grid.shape)).find("holds 20 bytes"), std::string::npos);
    EXPECT_NE(reason_of(read_npy_field(dir.file("cut.npy"), grid, grid.shape)).find("cut off inside its header"),
              std::string::npos);
    EXPECT_NE(reason_of(read_npy_field(dir.file("text.npy"), grid, grid.shape)).find("is not a .npy file"),
              std::string::npos);
}

TEST(ReadNpyField, AcceptsAScalarAsShapeOne)
{
    TempDir dir;
    const io::FieldSpec energy{"energy", io::DType::float32, {}, ""};
    std::ofstream(dir.file("a.npy"), std::ios::binary) << npy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", floats({7}));
    std::ofstream(dir.file("b.npy"), std::ios::binary) << npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", floats({7}));

    EXPECT_EQ(reason_of(read_npy_field(dir.file("a.npy"), energy, {})), "");
    EXPECT_EQ(reason_of(read_npy_field(dir.file("b.npy"), energy, {})), "");
}

TEST(ReadNpyField, ReadsNumpysBoolAndRefusesBytesOtherThanZeroOrOne)
{
    TempDir dir;
    const io::FieldSpec mask{"mask", io::DType::boolean, {4}, ""};
    const std::string header = "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }";
    std::ofstream(dir.file("mask.npy"), std::ios::binary) << npy(header, std::string("\x01\x00\x00\x01", 4));

    const auto result = read_npy_field(dir.file("mask.npy"), mask, mask.shape);

    ASSERT_EQ(reason_of(result), "");
    const auto& bytes = std::get<std::vector<std::byte>>(result);
    ASSERT_EQ(bytes.size(), 4u);
    EXPECT_EQ(std::to_integer<int>(bytes[0]), 1);
    EXPECT_EQ(std::to_integer<int>(bytes[1]), 0);
    EXPECT_EQ(std::to_integer<int>(bytes[3]), 1);

    std::ofstream(dir.file("mask.npy"), std::ios::binary) << npy(header, std::string("\x01\x02\x00\x01", 4));
    EXPECT_NE(reason_of(read_npy_field(dir.file("mask.npy"), mask, mask.shape)).find("a bool byte other than 0 or 1"),
              std::string::npos);
    // A uint8 array is not a bool array: the declared dtype's descr is named.
    std::ofstream(dir.file("mask.npy"), std::ios::binary)
        << npy("{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }", std::string("\x01\x00\x00\x01", 4));
    EXPECT_NE(reason_of(read_npy_field(dir.file("mask.npy"), mask, mask.shape)).find("declared bool ('|b1')"),
              std::string::npos);
}

}  // namespace
}  // namespace shardrun::process
