// tasks_per_gpu, gpu_sharing, gpu_threads, gpu_memory (issue 26, point 1): parsed values, and
// each bad combination as one located line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runner/errors.hpp"
#include "runner/job/byte_size.hpp"
#include "runner/job/job_parser.hpp"
#include "tests/runner/job/job_file_error.hpp"

namespace shardrun::job {
namespace {

const std::vector<std::string> known_tasks = {"exec", "noop", "gemm"};

std::string error_of(const std::string& text) { return job_file_error(text, known_tasks); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ByteSize, SuffixesArePowersOf1024)
{
    EXPECT_EQ(parse_byte_size("4096"), 4096u);
    EXPECT_EQ(parse_byte_size("10G"), 10ull << 30);
    EXPECT_EQ(parse_byte_size("512M"), 512ull << 20);
    EXPECT_EQ(parse_byte_size("1.5G"), 3ull << 29);
    EXPECT_EQ(parse_byte_size("2T"), 2ull << 40);
    EXPECT_EQ(parse_byte_size("64k"), 64ull << 10);
    EXPECT_EQ(parse_byte_size("10GB"), 10ull << 30);
    EXPECT_EQ(parse_byte_size("10GiB"), 10ull << 30);
}

TEST(ByteSize, RefusesWhatIsNotASize)
{
    for (const char* text : {"", "G", "10X", "ten", "0", "1.2.3G", "-1G", "10 G", "10GG", "99999999999T"}) {
        EXPECT_FALSE(parse_byte_size(text).has_value()) << text;
    }
}

TEST(ByteSize, TextIsTheShortestExactForm)
{
    EXPECT_EQ(byte_size_text(10ull << 30), "10G");
    EXPECT_EQ(byte_size_text(3ull << 29), "1536M");
    EXPECT_EQ(byte_size_text(1000), "1000");
}

TEST(GpuSharingSection, MpsWithDefaultsSetsSlotsAndThreadShare)
{
    const auto spec = parse_job("job.yaml", "task: noop\ntasks_per_gpu: 3\ngpu_sharing: mps\ngpu_memory: 2G\n", {}, known_tasks);

    EXPECT_TRUE(spec.gpu_sharing.given);
    EXPECT_TRUE(spec.gpu_sharing.mps());
    EXPECT_EQ(spec.gpu_sharing.tasks_per_gpu, 3);
    EXPECT_EQ(spec.slots_per_rank, 3);
    EXPECT_EQ(spec.gpu_sharing.thread_percent, 33);
    EXPECT_EQ(spec.gpu_sharing.memory_bytes, 2ull << 30);
}

TEST(GpuSharingSection, TimeIsTheDefaultAndGpuThreadsOverridesTheShare)
{
    const auto time = parse_job("job.yaml", "task: noop\ntasks_per_gpu: 4\n", {}, known_tasks);
    const auto threads = parse_job("job.yaml", "task: noop\ntasks_per_gpu: 4\ngpu_sharing: mps\ngpu_threads: 40\n", {},
                                   known_tasks);

    EXPECT_FALSE(time.gpu_sharing.mps());
    EXPECT_EQ(time.slots_per_rank, 4);
    EXPECT_EQ(threads.gpu_sharing.thread_percent, 40);
}

TEST(GpuSharingSection, AbsentKeysChangeNothing)
{
    const auto spec = parse_job("job.yaml", "task: noop\nslots_per_rank: 2\n", {}, known_tasks);

    EXPECT_FALSE(spec.gpu_sharing.given);
    EXPECT_EQ(spec.slots_per_rank, 2);
}

TEST(GpuSharingSection, BadInputIsOneLocatedLine)
{
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"task: noop\ntasks_per_gpu: 0\n", "bad.yaml:2:16: tasks_per_gpu:"},
        {"task: noop\ntasks_per_gpu: 0.25\n", "bad.yaml:2:16: tasks_per_gpu:"},
        {"task: noop\ngpu_sharing: shared\n", "bad.yaml:2:14: gpu_sharing: 'shared' is not allowed; allowed: time, mps"},
        {"task: noop\ngpu_sharing: mpss\n", "bad.yaml:2:14: gpu_sharing: 'mpss' is not allowed (did you mean 'mps'?); allowed: time, mps"},
        {"task: noop\ntasks_per_gpu: 2\ngpu_threads: 50\n", "bad.yaml:3:14: gpu_threads: applies only with gpu_sharing: mps"},
        {"task: noop\ngpu_sharing: mps\ngpu_threads: 101\n", "bad.yaml:3:14: gpu_threads: 101 is above 100"},
        {"task: noop\ngpu_sharing: mps\ngpu_memory: lots\n", "bad.yaml:3:13: gpu_memory: 'lots' is not a size"},
        {"task: noop\ntasks_per_gpu: 2\ngpu_memory: 1G\n", "bad.yaml:3:13: gpu_memory: applies only with gpu_sharing: mps"},
        {"task: noop\ntasks_per_gpu: 2\nslots_per_rank: 3\n", "bad.yaml:3:17: slots_per_rank: is 3 but tasks_per_gpu is 2"},
        {"task: noop\ntasks_per_gpu: 2\ndevice: cpu\n", "bad.yaml:2:16: tasks_per_gpu: shares a GPU, but device: cpu"},
        {"task: noop\ntasks_per_gpu: 2\ngpus_per_task: 2\n", "tasks_per_gpu: cannot be combined with gpus_per_task"},
        {"task: noop\ntasks_per_gpu: 2\ngpus_per_rank: 2\n", "tasks_per_gpu: cannot be combined with gpus_per_rank"},
        {"task: exec\nexec: {argv: [w], mode: worker}\ntasks_per_gpu: 2\ngpu_sharing: mps\n",
         "exec.mode: worker runs one process per rank"},
    };
    for (const auto& [text, expected] : cases) {
        const auto message = error_of(text);

        EXPECT_TRUE(contains(message, expected)) << text << " -> " << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
}

TEST(GpuSharingSection, SameSlotsAsTasksPerGpuIsAccepted)
{
    const auto spec = parse_job("job.yaml", "task: noop\ntasks_per_gpu: 2\nslots_per_rank: 2\n", {}, known_tasks);

    EXPECT_EQ(spec.slots_per_rank, 2);
}

}  // namespace
}  // namespace shardrun::job
