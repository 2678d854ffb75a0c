#include "runner/tasks/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/selftest/selftest.hpp"
#include "runner/errors.hpp"
#include "runner/job/job_spec.hpp"

namespace {

using namespace shardrun;
using namespace shardrun::tasks;

/** The kernel kinds' rows of the one task kind table (those marked kernel: the registry says, not a list here). */
std::vector<const TaskKindEntry*> kernel_kinds()
{
    std::vector<const TaskKindEntry*> entries;
    for (const auto& entry : task_kinds()) {
        if (entry.kernel) entries.push_back(&entry);
    }
    return entries;
}

std::unique_ptr<TaskKind> make(const std::string& name)
{
    const auto* entry = find_task_kind(name);
    return entry != nullptr ? entry->make(job::JobSpec{}) : nullptr;
}

template <typename T>
T scalar(const std::vector<std::byte>& bytes)
{
    T value{};
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
}

TaskOutcome run(const TaskKind& kind, const job::ParamMap& params, std::optional<job::DataRange> range = {}, std::string input = {})
{
    TaskContext context;
    context.params = &params;
    context.range = range;
    context.input = std::move(input);
    return kind.run(context);
}

void expect_sizes_match_fields(const TaskKind& kind, const job::ParamMap& params, const TaskOutcome& outcome)
{
    const auto fields = kind.fields(params);
    ASSERT_EQ(outcome.values.size(), fields.size()) << outcome.message;
    for (std::size_t i = 0; i < fields.size(); ++i) EXPECT_EQ(outcome.values[i].size(), fields[i].bytes()) << fields[i].name;
}

/** The message validate() throws, or "" when it accepts. */
std::string validate_error(const TaskKind& kind, const job::ParamMap& params, const JobView& job)
{
    try {
        kind.validate(params, job);
    } catch (const JobFileError& e) {
        return e.what();
    }
    return "";
}

TEST(KernelKinds, Heat2dRefusesUnstableDtNamingTheFieldAndTheLimit)
{
    job::ParamMap params;
    params.set("nx", std::int64_t{101});
    params.set("alpha", 1.0);
    params.set("dt", 1e-3);

    try {
        make("heat2d")->validate(params, {});
        FAIL() << "unstable dt accepted";
    } catch (const JobFileError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("params.dt: ", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("2.5e-05"), std::string::npos) << e.what();
    }
}

TEST(KernelKinds, Heat2dRunsAndFillsEveryDeclaredField)
{
    job::ParamMap params;
    params.set("nx", std::int64_t{9});
    params.set("steps", std::int64_t{10});
    params.set("stride", std::int64_t{2});
    const auto kind = make("heat2d");

    const auto outcome = run(*kind, params);

    ASSERT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    EXPECT_EQ(kind->fields(params)[0].shape, (std::vector<std::size_t>{5, 5}));
    expect_sizes_match_fields(*kind, params, outcome);
    EXPECT_GT(scalar<double>(outcome.values[1]), 0.0);
    EXPECT_LT(scalar<double>(outcome.values[2]), 1.0);  // the peak has decayed
}

TEST(KernelKinds, GemmChecksDtypeAndReportsAChecksum)
{
    job::ParamMap bad, good;
    bad.set("dtype", std::string("int8"));
    good.set("n", std::int64_t{16});
    good.set("dtype", std::string("float64"));
    const auto kind = make("gemm");

    EXPECT_THROW(kind->validate(bad, {}), JobFileError);
    const auto outcome = run(*kind, good);

    ASSERT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    expect_sizes_match_fields(*kind, good, outcome);
    EXPECT_TRUE(std::isfinite(scalar<double>(outcome.values[2])));
}

TEST(KernelKinds, MonteCarloPriceIsTheSameBitsOnEveryRun)
{
    job::ParamMap params, nan_spot;
    params.set("paths", std::int64_t{20'000});
    params.set("seed", std::int64_t{9});
    nan_spot.set("spot", std::numeric_limits<double>::quiet_NaN());
    const auto kind = make("montecarlo");

    const auto first = run(*kind, params), second = run(*kind, params);

    ASSERT_EQ(first.status, io::TaskStatus::ok) << first.message;
    EXPECT_EQ(first.values[0], second.values[0]);
    EXPECT_EQ(first.values[1], second.values[1]);
    EXPECT_THROW(kind->validate(nan_spot, {}), JobFileError);
}

TEST(KernelKinds, BlurPadsAShortLastChunkAndRefusesALongOne)
{
    job::ParamMap params, bad_sigma;
    params.set("height", std::int64_t{6});
    params.set("chunk", std::int64_t{3});
    bad_sigma.set("sigma", 0.0);
    const auto kind = make("blur");

    const auto short_chunk = run(*kind, params, job::DataRange{6, 8});
    const auto long_chunk = run(*kind, params, job::DataRange{0, 4});

    ASSERT_EQ(short_chunk.status, io::TaskStatus::ok) << short_chunk.message;
    expect_sizes_match_fields(*kind, params, short_chunk);
    EXPECT_EQ(scalar<std::int64_t>(short_chunk.values[1]), 2);
    EXPECT_EQ(scalar<float>({short_chunk.values[0].end() - 4, short_chunk.values[0].end()}), 0.0f);
    EXPECT_EQ(long_chunk.status, io::TaskStatus::failed);
    EXPECT_NE(long_chunk.message.find("params.chunk"), std::string::npos) << long_chunk.message;
    EXPECT_THROW(kind->validate(bad_sigma, {}), JobFileError);
}

TEST(KernelKinds, EmbedRowsAreUnitLength)
{
    job::ParamMap params, bad;
    params.set("chunk", std::int64_t{4});
    params.set("input_dim", std::int64_t{8});
    params.set("output_dim", std::int64_t{5});
    bad.set("activation", std::string("softmax"));
    const auto kind = make("embed");

    const auto outcome = run(*kind, params, job::DataRange{100, 104});

    ASSERT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    std::vector<float> e(20);
    std::memcpy(e.data(), outcome.values[0].data(), 80);
    double norm = 0.0;
    for (int j = 0; j < 5; ++j) norm += e[j] * e[j];
    EXPECT_NEAR(norm, 1.0, 1e-5);
    EXPECT_THROW(kind->validate(bad, {}), JobFileError);
}

TEST(KernelKinds, BlurChecksTheChunkAndTheInputBeforeAnyTaskRuns)
{
    job::ParamMap params;
    params.set("height", std::int64_t{8});
    params.set("chunk", std::int64_t{2});
    job::JobSpec spec;
    spec.data.present = true;
    spec.data.chunk = 4;
    const io::DatasetInfo images{{10, 8, 8}, "float32"}, small{{10, 4, 4}, "float32"}, flat{{10, 64}, "float32"};
    const auto kind = make("blur");

    const auto long_chunk = validate_error(*kind, params, {&spec, &images});
    spec.data.chunk = 2;
    const auto fits = validate_error(*kind, params, {&spec, &images});
    const auto wrong_size = validate_error(*kind, params, {&spec, &small});
    const auto wrong_rank = validate_error(*kind, params, {&spec, &flat});

    EXPECT_EQ(long_chunk.rfind("params.chunk: 2 images per task, but data.chunk gives a task up to 4", 0), 0u) << long_chunk;
    EXPECT_EQ(fits, "");
    EXPECT_EQ(wrong_size.rfind("params.height: data.input holds 4x4 images", 0), 0u) << wrong_size;
    EXPECT_EQ(wrong_rank, "data.input: holds [10, 64] float32; blur needs float32 images [N, height, width]");
}

TEST(KernelKinds, EmbedChecksTheInputDtypeAndColumnsBeforeAnyTaskRuns)
{
    job::ParamMap params;
    params.set("input_dim", std::int64_t{8});
    params.set("chunk", std::int64_t{4});
    job::JobSpec spec;
    spec.data.present = true;
    spec.data.chunk = 4;
    const io::DatasetInfo rows{{16, 8}, "float32"}, doubles{{16, 8}, "float64"}, narrow{{16, 3}, "float32"};
    const auto kind = make("embed");

    const auto fits = validate_error(*kind, params, {&spec, &rows});
    const auto wrong_dtype = validate_error(*kind, params, {&spec, &doubles});
    const auto wrong_columns = validate_error(*kind, params, {&spec, &narrow});

    EXPECT_EQ(fits, "");
    EXPECT_EQ(wrong_dtype, "data.input: holds [16, 8] float64; embed needs float32 rows [N, input_dim]");
    EXPECT_EQ(wrong_columns, "params.input_dim: 8 but the rows of data.input have 3 columns; set input_dim: 3");
}

}  // namespace

TEST(KernelKinds, EveryKernelKindHasASelftestCase)
{
    const auto kinds = kernel_kinds();
    ASSERT_FALSE(kinds.empty());

    for (const auto* entry : kinds) {
        const auto& cases = kernels::selftest_cases_list();
        const auto found = std::find_if(cases.begin(), cases.end(),
                                        [&](const kernels::SelftestCase& c) { return entry->name == c.kernel; });
        EXPECT_NE(found, cases.end()) << "task kind '" << entry->name
                                      << "' is a kernel kind without a case: kernels/" << entry->name << "/" << entry->name
                                      << "_check.cpp defines " << entry->name << "_selftest_cases()";
    }
}

TEST(KernelKinds, EveryKindRecordsItsKernelSeconds)
{
    job::ParamMap params;  // the sizes each kind knows, kept small
    params.set("n", std::int64_t{16});
    params.set("nx", std::int64_t{8});
    params.set("ny", std::int64_t{8});
    params.set("paths", std::int64_t{1000});
    params.set("height", std::int64_t{8});

    for (const auto* row : kernel_kinds()) {
        const auto& entry = *row;
        job::ParamMap own;
        for (const auto& [name, value] : params.entries()) {
            if (entry.params->find(name) != nullptr) own.set(name, value);
        }
        const auto kind = entry.make(job::JobSpec{});

        const auto outcome = run(*kind, own);

        ASSERT_EQ(outcome.status, io::TaskStatus::ok) << entry.name << ": " << outcome.message;
        const auto fields = kind->fields(own);
        const auto field = std::find_if(fields.begin(), fields.end(), [](const auto& f) { return f.name == "seconds"; });
        ASSERT_NE(field, fields.end()) << entry.name;
        EXPECT_EQ(field->units, "s") << entry.name;
        const auto seconds = scalar<double>(outcome.values[field - fields.begin()]);
        EXPECT_TRUE(std::isfinite(seconds) && seconds > 0) << entry.name << ": " << seconds;
        EXPECT_NE(entry.params->find("device"), nullptr) << entry.name;
    }
}

TEST(KernelKinds, BlurWithBlurredDropKeepsOnlyTheCountAndSeconds)
{
    job::ParamMap params;
    params.set("height", std::int64_t{8});
    params.set("blurred", std::string("drop"));
    const auto kind = make("blur");

    const auto outcome = run(*kind, params);

    ASSERT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    const auto fields = kind->fields(params);
    ASSERT_EQ(fields.size(), 2u);
    EXPECT_EQ(fields[0].name, "images");
    EXPECT_EQ(outcome.values.size(), 2u);
    EXPECT_EQ(scalar<std::int64_t>(outcome.values[0]), 1);
}
