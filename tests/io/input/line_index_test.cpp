// The line-input index (io/input/line_index.hpp), CSV fields and data.id's ids, on real files.
#include "io/input/line_index.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "io/input/csv_fields.hpp"
#include "io/input/dataset_reader.hpp"
#include "io/input/item_ids.hpp"
#include "tests/support/h5_fixture.hpp"

namespace {

using namespace shardrun::io;
using shardrun::test::temp_path;

class LineIndexTest : public testing::Test {
protected:
    std::string write(const std::string& name, const std::string& text)
    {
        const auto path = temp_path(name);
        std::ofstream(path, std::ios::binary) << text;
        files_.push_back(path);
        files_.push_back(line_index_path(path));
        return path;
    }
    void TearDown() override
    {
        for (const auto& file : files_) std::remove(file.c_str());
    }
    std::vector<std::string> files_;
};

TEST_F(LineIndexTest, TextOffsetsWithAndWithoutAFinalNewline)
{
    const auto index = build_line_index(write("a.txt", "one\ntwo\r\n\nfour"), LineFormat::text, "s");
    EXPECT_EQ(index.records, 4u);
    EXPECT_EQ(index.offsets, (std::vector<std::uint64_t>{0, 4, 9, 10, 14}));
    EXPECT_EQ(build_line_index(write("b.txt", "one\ntwo\n"), LineFormat::text, "s").records, 2u);
    EXPECT_EQ(build_line_index(write("c.txt", ""), LineFormat::text, "s").records, 0u);
}

TEST_F(LineIndexTest, JsonLinesAreCheckedWithTheirLineNumber)
{
    EXPECT_EQ(build_line_index(write("ok.jsonl", "{\"a\": 1}\n{\"a\": [2, 3]}\n"), LineFormat::jsonl, "s").records, 2u);
    const auto bad = write("bad.jsonl", "{\"a\": 1}\n{\"a\": \n");  // cut short: no closing brace
    try {
        build_line_index(bad, LineFormat::jsonl, "s");
        FAIL() << "a malformed line was accepted";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find(bad + ":2: not valid JSON"), std::string::npos) << error.what();
    }
    EXPECT_THROW(build_line_index(write("list.jsonl", "[1, 2]\n"), LineFormat::jsonl, "s"), InputError);
    EXPECT_THROW(build_line_index(write("blank.jsonl", "{}\n\n{}\n"), LineFormat::jsonl, "s"), InputError);
}

TEST_F(LineIndexTest, CsvHeaderIsNoRecordAndRaggedRecordsAreRefused)
{
    const auto index = build_line_index(write("ok.csv", "id,text\n1,\"a, b\"\n2,\"say \"\"hi\"\"\"\n"), LineFormat::csv, "s");
    EXPECT_EQ(index.records, 2u);
    EXPECT_EQ(index.columns, (std::vector<std::string>{"id", "text"}));
    EXPECT_EQ(index.line_of(0), 2u);
    const auto ragged = write("ragged.csv", "id,text\n1,a\n2,b,c\n");
    try {
        build_line_index(ragged, LineFormat::csv, "s");
        FAIL() << "a ragged record was accepted";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find(ragged + ":3: 3 fields where the header has 2"), std::string::npos)
            << error.what();
    }
    EXPECT_THROW(build_line_index(write("open.csv", "id,text\n1,\"a\n"), LineFormat::csv, "s"), InputError);
}

TEST_F(LineIndexTest, CsvFieldsAreUnquoted)
{
    EXPECT_EQ(*split_csv_fields("a,\"b,c\",\"d\"\"e\","), (std::vector<std::string>{"a", "b,c", "d\"e", ""}));
    EXPECT_FALSE(split_csv_fields("a,\"b").has_value());
    EXPECT_EQ(count_csv_fields("a,\"b,c\",\"d\"\"e\","), 4u);
}

TEST_F(LineIndexTest, SavedIndexIsReadBackOnlyForTheSameStampAndFormat)
{
    const auto path = write("d.jsonl", "{\"id\": 7}\n{\"id\": 8}\n");
    const auto built = local_line_index(path, LineFormat::jsonl);
    const auto stamp = local_stamp(path);
    const auto loaded = load_line_index(line_index_path(path), stamp, LineFormat::jsonl);
    ASSERT_TRUE(loaded.has_value());
    EXPECT_EQ(loaded->offsets, built.offsets);
    EXPECT_EQ(load_line_index(line_index_path(path), stamp, LineFormat::jsonl, true)->records, 2u);
    EXPECT_FALSE(load_line_index(line_index_path(path), "other", LineFormat::jsonl).has_value()) << "stale";
    EXPECT_FALSE(load_line_index(line_index_path(path), stamp, LineFormat::text).has_value());
    EXPECT_FALSE(parse_line_index(line_index_bytes(built).substr(0, 20), stamp, LineFormat::jsonl).has_value());
}

TEST_F(LineIndexTest, IdsAreIntegersUntilOneIsText)
{
    const auto ints = write("ints.jsonl", "{\"id\": 3}\n{\"id\": 4}\n");
    auto ids = read_item_ids(ints, local_line_index(ints, LineFormat::jsonl), "id");
    EXPECT_TRUE(ids.integer);
    EXPECT_EQ(ids.ints, (std::vector<std::int64_t>{3, 4}));
    const auto mixed = write("mixed.csv", "k,v\n1,a\nx2,b\n");
    ids = read_item_ids(mixed, local_line_index(mixed, LineFormat::csv), "k");
    EXPECT_FALSE(ids.integer);
    EXPECT_EQ(ids.text, (std::vector<std::string>{"1", "x2"}));
    const auto missing = write("missing.jsonl", "{\"id\": 1}\n{\"no\": 2}\n");
    try {
        read_item_ids(missing, local_line_index(missing, LineFormat::jsonl), "id");
        FAIL() << "a record without the id was accepted";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find(missing + ":2: the record has no key 'id'"), std::string::npos);
    }
    EXPECT_THROW(read_item_ids(mixed, local_line_index(mixed, LineFormat::csv), "nope"), InputError);
}

}  // namespace
