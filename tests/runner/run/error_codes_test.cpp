#include "runner/run/error_codes.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "collectives/mpi/mpi_error.hpp"
#include "collectives/nccl/nccl_communicator.hpp"
#include "collectives/stall_guard.hpp"
#include "io/errors.hpp"
#include "io/hdf5/handle.hpp"
#include "io/input/dataset_reader.hpp"
#include "kernels/common/errors.hpp"
#include "runner/core/rank_fatal.hpp"
#include "runner/errors.hpp"

namespace shardrun::run {
namespace {

// Existing handlers catch some of these as std::runtime_error (nccl_setup.cpp, result_json.cpp).
static_assert(std::is_base_of_v<std::runtime_error, Error>);

/** Where an error was thrown, as its catcher sees it. */
struct Caught {
    std::string file;
    int line = 0;
    int exit_code = -1;
    std::string what;
};

template <typename Throw>
Caught catch_error(Throw&& throw_it)
{
    try {
        throw_it();
    } catch (const Error& error) {
        return {error.file(), error.line(), exit_code_of(error), error.what()};
    }
    ADD_FAILURE() << "nothing was thrown";
    return {};
}

// Each line throws `Type` with SHARDRUN_THROW and checks, from a catch of the base class, the
// exit code, that file() and line() name this line, and that the message is the message alone.
#define EXPECT_THROWN_HERE(code, Type, ...)                                                                \
    do {                                                                                                   \
        static_assert(std::is_base_of_v<Error, Type>, #Type " must derive from shardrun::Error");          \
        const int here = __LINE__;                                                                         \
        const auto caught = catch_error([] { SHARDRUN_THROW(Type, __VA_ARGS__); });                        \
        EXPECT_EQ(caught.exit_code, code) << #Type;                                                        \
        EXPECT_EQ(caught.file, __FILE__) << #Type;                                                         \
        EXPECT_EQ(caught.line, here) << #Type;                                                             \
        EXPECT_EQ(caught.what, "the message") << #Type;                                                    \
    } while (false)

TEST(ErrorCodes, BadInputClassesExitWith2)
{
    EXPECT_THROWN_HERE(exit_bad_input, UsageError, "the message");
    EXPECT_THROWN_HERE(exit_bad_input, JobFileError, "the message");
    EXPECT_THROWN_HERE(exit_bad_input, io::OutputError, "the message");
    EXPECT_THROWN_HERE(exit_bad_input, io::InputError, "the message");
}

TEST(ErrorCodes, FailureClassesExitWith1)
{
    EXPECT_THROWN_HERE(exit_task_failed, Error, "the message");
    EXPECT_THROWN_HERE(exit_task_failed, io::Hdf5Error, "the message", "No space left on device");
    EXPECT_THROWN_HERE(exit_task_failed, io::WriteError, "the message");
    EXPECT_THROWN_HERE(exit_task_failed, kernels::NotCompiled, "the message");
    EXPECT_THROWN_HERE(exit_task_failed, kernels::CudaError, "the message");
    EXPECT_THROWN_HERE(exit_task_failed, collectives::MpiError, "the message");
    EXPECT_THROWN_HERE(exit_task_failed, collectives::NcclError, "the message");
    EXPECT_THROWN_HERE(exit_task_failed, collectives::CollectiveStall, "the message");
    EXPECT_THROWN_HERE(exit_task_failed, tasks::RankFatalError, "the message");
}

TEST(ErrorCodes, CollectiveFailureExitsWithTheAgreedCode)
{
    EXPECT_THROWN_HERE(exit_bad_input, CollectiveFailure, "the message", exit_bad_input, true);
    EXPECT_THROWN_HERE(exit_task_failed, CollectiveFailure, "the message", exit_task_failed, false);
    EXPECT_THROWN_HERE(exit_interrupted, CollectiveFailure, "the message", exit_interrupted, false);
}

TEST(ErrorCodes, OtherExceptionsExitWith1)
{
    EXPECT_EQ(exit_code_of(std::runtime_error("x")), exit_task_failed);
    EXPECT_EQ(exit_code_of(std::bad_alloc()), exit_task_failed);
    EXPECT_EQ(exit_code_of(SHARDRUN_ERROR(kernels::InvalidKernelArgument, "dt", "x")), exit_task_failed);
    EXPECT_EQ(exit_code_of(SHARDRUN_ERROR(io::ResultShapeError, "x")), exit_task_failed);
}

TEST(ErrorCodes, ALibraryThrowSiteIsItsOwnSourceLine)
{
    const auto caught = catch_error([] { io::parse_dataset_location("no-colon.h5"); });
    EXPECT_EQ(caught.what, "'no-colon.h5' is not FILE.h5:/dataset");
    EXPECT_EQ(caught.exit_code, exit_bad_input);
    EXPECT_TRUE(caught.file.ends_with("io/input/dataset_reader.cpp")) << caught.file;
    EXPECT_GT(caught.line, 0);
}

TEST(ErrorCodes, CheckedCallsLocateTheCallNotTheChecker)
{
    io::hdf5::silence_hdf5_errors();
    const int here = __LINE__ + 1;
    const auto caught = catch_error([] { SHARDRUN_H5_CHECK(H5Fopen("/nonexistent.h5", H5F_ACC_RDONLY, H5P_DEFAULT)); });
    EXPECT_EQ(caught.file, __FILE__);
    EXPECT_EQ(caught.line, here);
    EXPECT_EQ(caught.exit_code, exit_task_failed);
    // The message has named the call's site all along; that stays.
    const auto site = " failed at " + std::string(__FILE__) + ":" + std::to_string(here);
    EXPECT_EQ(caught.what.rfind("HDF5 call H5Fopen(", 0), 0u) << caught.what;
    EXPECT_NE(caught.what.find(site), std::string::npos) << caught.what;
}

}  // namespace
}  // namespace shardrun::run
