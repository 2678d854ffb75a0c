#include "runner/run/error_message.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "base/documented_error.hpp"
#include "collectives/stall_guard.hpp"
#include "io/errors.hpp"
#include "runner/errors.hpp"
#include "runner/run/error_codes.hpp"
#include "runner/storage/rclone.hpp"

namespace shardrun::run {
namespace {

/** The exception `throw_it` throws, caught as std::exception the way main() catches it: its printed line. */
template <typename Throw>
std::string printed(Throw&& throw_it)
{
    try {
        throw_it();
    } catch (const std::exception& error) {
        return user_message(error);
    }
    ADD_FAILURE() << "nothing was thrown";
    return {};
}

TEST(ErrorMessage, ADocumentedErrorEndsWithItsPointerOnTheSameLine)
{
    const auto line = printed(
        [] { SHARDRUN_THROW_DOCUMENTED(io::OutputError, "docs/troubleshooting.md#output-exists", "out.h5 already exists"); });

    EXPECT_EQ(line, "out.h5 already exists (see docs/troubleshooting.md#output-exists)");
}

TEST(ErrorMessage, ADocumentedErrorIsStillItsClassToEveryCatch)
{
    try {
        SHARDRUN_THROW_DOCUMENTED(io::OutputError, "docs/troubleshooting.md#output-exists", "out.h5 already exists");
    } catch (const io::OutputError& error) {
        // The class decides the exit code and what() stays the message as thrown.
        EXPECT_EQ(exit_code_of(error), exit_bad_input);
        EXPECT_STREQ(error.what(), "out.h5 already exists");
        EXPECT_STREQ(docs_of(error), "docs/troubleshooting.md#output-exists");
        return;
    }
    ADD_FAILURE() << "not caught as io::OutputError";
}

TEST(ErrorMessage, ClassesWhoseFixIsOneSectionPointThereWithoutHelpFromTheThrowSite)
{
    EXPECT_EQ(printed([] { SHARDRUN_THROW(io::WriteError, "cannot commit results to x.tmp: No space left on device"); }),
              "cannot commit results to x.tmp: No space left on device (see docs/troubleshooting.md#disk-full)");
    EXPECT_EQ(printed([] { SHARDRUN_THROW(collectives::CollectiveStall, "allreduce #3 did not complete"); }),
              "allreduce #3 did not complete (see docs/troubleshooting.md#collective-timeout)");
    EXPECT_EQ(printed([] { SHARDRUN_THROW(storage::TransferError, "cannot read s3://b/x: rclone exited 1"); }),
              "cannot read s3://b/x: rclone exited 1 (see docs/troubleshooting.md#bucket-errors)");
}

TEST(ErrorMessage, TheThrowSitesPointerWinsOverTheClassDefault)
{
    const auto line = printed(
        [] { SHARDRUN_THROW_DOCUMENTED(io::WriteError, "docs/troubleshooting.md#resume-mismatch", "cannot write"); });

    EXPECT_EQ(line, "cannot write (see docs/troubleshooting.md#resume-mismatch)");
}

TEST(ErrorMessage, AOneLineErrorStaysAsThrown)
{
    EXPECT_EQ(printed([] { SHARDRUN_THROW(JobFileError, "job.yaml:3:10: retries: 'lots' is not an integer"); }),
              "job.yaml:3:10: retries: 'lots' is not an integer");
    EXPECT_EQ(printed([] { throw std::runtime_error("a library's own"); }), "a library's own");
    EXPECT_EQ(docs_of(std::runtime_error("x")), nullptr);
}

}  // namespace
}  // namespace shardrun::run
