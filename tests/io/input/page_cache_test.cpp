#include "io/input/page_cache.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "io/input/dataset_reader.hpp"

namespace {

using namespace shardrun::io;

/** 1000 bytes 0, 1, 2, ... (mod 251) read by ranges; every call is recorded. */
class PageCacheTest : public testing::Test {
protected:
    PageCacheTest()
    {
        for (int i = 0; i < 1000; ++i) bytes_.push_back(static_cast<char>(i % 251));
        file_.name = "mem://bytes";
        file_.size = bytes_.size();
        file_.read = [this](std::uint64_t offset, std::uint64_t count) {
            calls_.emplace_back(offset, count);
            return bytes_.substr(offset, count);
        };
    }

    std::string read(PageCache& cache, std::uint64_t offset, std::size_t size)
    {
        std::string out(size, '\xff');
        cache.read(offset, size, out.data());
        return out;
    }

    std::string bytes_;
    RangedFile file_;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> calls_;
};

TEST_F(PageCacheTest, ReadsWithinTheHeadMakeNoCall)
{
    file_.head = bytes_.substr(0, 250);
    PageCache cache(file_, 100);

    const auto got = read(cache, 10, 180);

    EXPECT_EQ(got, bytes_.substr(10, 180));
    EXPECT_TRUE(calls_.empty());
}

TEST_F(PageCacheTest, MissingNeighbourPagesComeInOneCallAndOnlyOnce)
{
    PageCache cache(file_, 100);

    const auto first = read(cache, 150, 200);   // pages 1..3
    const auto again = read(cache, 220, 10);    // page 2, cached

    EXPECT_EQ(first, bytes_.substr(150, 200));
    EXPECT_EQ(again, bytes_.substr(220, 10));
    ASSERT_EQ(calls_.size(), 1u);
    EXPECT_EQ(calls_[0], std::make_pair(std::uint64_t{100}, std::uint64_t{300}));
    EXPECT_EQ(cache.fetched_bytes(), 300u);
}

TEST_F(PageCacheTest, OnlyTheGapBetweenCachedPagesIsFetched)
{
    PageCache cache(file_, 100);
    read(cache, 0, 10);    // page 0
    read(cache, 300, 10);  // page 3
    calls_.clear();

    const auto got = read(cache, 50, 300);  // pages 0..3: 1 and 2 are missing

    EXPECT_EQ(got, bytes_.substr(50, 300));
    ASSERT_EQ(calls_.size(), 1u);
    EXPECT_EQ(calls_[0], std::make_pair(std::uint64_t{100}, std::uint64_t{200}));
}

TEST_F(PageCacheTest, TheLastPageIsShortAndBytesPastTheEndAreZero)
{
    PageCache cache(file_, 300);

    const auto got = read(cache, 950, 100);

    EXPECT_EQ(got, bytes_.substr(950, 50) + std::string(50, '\0'));
    ASSERT_EQ(calls_.size(), 1u);
    EXPECT_EQ(calls_[0], std::make_pair(std::uint64_t{900}, std::uint64_t{100}));
}

TEST_F(PageCacheTest, AShortAnswerIsAnError)
{
    file_.read = [](std::uint64_t, std::uint64_t count) { return std::string(count / 2, 'x'); };
    PageCache cache(file_, 100);

    EXPECT_THROW(read(cache, 0, 10), InputError);
}

}  // namespace
