#include "runner/submit/slurm_options.hpp"

#include <gtest/gtest.h>

#include "runner/errors.hpp"

namespace shardrun::submit {
namespace {

TEST(SlurmOptions, RunLinesInOrderAndPassThrough)
{
    SubmitOptions options;
    options.account = "proj";
    options.mem = "64G";
    options.cpus_per_task = 4;
    options.sbatch_lines = {"constraint=a100", "--exclusive"};

    const auto lines = slurm_run_option_lines(options);

    EXPECT_EQ(lines, "#SBATCH --account=proj\n#SBATCH --mem=64G\n#SBATCH --cpus-per-task=4\n"
                     "#SBATCH --constraint=a100\n#SBATCH --exclusive\n");
}

TEST(SlurmOptions, MergeLinesHaveTheirOwnTimeAndPartition)
{
    SubmitOptions defaults;
    SubmitOptions given;
    given.partition = "gpu";
    given.merge_partition = "cpu";
    given.merge_time = "20";

    const auto default_lines = slurm_merge_option_lines(defaults);
    const auto given_lines = slurm_merge_option_lines(given);

    EXPECT_EQ(default_lines, "#SBATCH --time=1:00:00\n");
    EXPECT_EQ(given_lines, "#SBATCH --time=20\n#SBATCH --partition=cpu\n");
}

TEST(SlurmOptions, RefusesLinesShardrunWritesAndBadValues)
{
    const auto refused = [](auto change) {
        SubmitOptions options;
        change(options);
        return [options] { validate_slurm_options(options); };
    };

    EXPECT_THROW(refused([](SubmitOptions& o) { o.sbatch_lines = {"--time=10"}; })(), UsageError);
    EXPECT_THROW(refused([](SubmitOptions& o) { o.sbatch_lines = {"-C a100"}; })(), UsageError);
    EXPECT_THROW(refused([](SubmitOptions& o) { o.mem = "4GB"; })(), UsageError);
    EXPECT_THROW(refused([](SubmitOptions& o) { o.account = "a b"; })(), UsageError);
    EXPECT_THROW(refused([](SubmitOptions& o) { o.merge_time = "soon"; })(), UsageError);
    EXPECT_NO_THROW(refused([](SubmitOptions& o) { o.sbatch_lines = {"--constraint=a100"}; })());
}

}  // namespace
}  // namespace shardrun::submit
