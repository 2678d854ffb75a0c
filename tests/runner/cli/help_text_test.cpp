// The plain-text form of a command's description in --help and the man page (runner/cli/help_text.cpp).
#include "runner/cli/help_text.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace shardrun::cli {
namespace {

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

TEST(HelpText, ParagraphsAreSplitAtBlankLinesAndJoinedWithin)
{
    const std::string text = "Reads a file\nand prints it.\n\nReach for it often.\n";

    const auto found = paragraphs(text);

    EXPECT_EQ(found, (std::vector<std::string>{"Reads a file and prints it.", "Reach for it often."}));
}

TEST(HelpText, PlainTextDropsTheBackticksOfCode)
{
    const auto text = plain_text("run `shardrun status OUT` after `--resume`");

    EXPECT_EQ(text, "run shardrun status OUT after --resume");
}

TEST(HelpText, WrappedLinesKeepTheWidthAndTheirIndents)
{
    const std::string paragraph = "one two three four five six seven eight nine ten eleven twelve";

    const auto lines = lines_of(wrapped(paragraph, 20, 2, 5));

    EXPECT_EQ(lines, (std::vector<std::string>{"  one two three four", "     five six seven", "     eight nine ten",
                                               "     eleven twelve"}));
}

TEST(HelpText, NoLineBeginsWithAnOption)
{
    // "--resume" would fall at the start of the second line; help2man would read it as an option.
    const std::string paragraph = "aaaa bbbb cccc run --resume again";

    const auto lines = lines_of(wrapped(paragraph, 18, 0, 0));

    EXPECT_EQ(lines, (std::vector<std::string>{"aaaa bbbb cccc", "run --resume again"}));
}

TEST(HelpText, AWordLongerThanTheWidthStandsAlone)
{
    const auto lines = lines_of(wrapped("a averyveryverylongword b", 10, 0, 0));

    EXPECT_EQ(lines, (std::vector<std::string>{"a", "averyveryverylongword", "b"}));
}

}  // namespace
}  // namespace shardrun::cli
