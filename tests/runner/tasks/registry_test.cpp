// The one task kind table: built-in kinds and those added by register_task_kind().
#include "runner/tasks/registry.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "runner/errors.hpp"

namespace shardrun::tasks {
namespace {

job::JobSpec spec_of(const std::string& task)
{
    job::JobSpec spec;
    spec.file = "job.yaml";
    spec.task = task;
    return spec;
}

// A registered kind of this test: one int64 field. Its name is one no built-in kind would take,
// so a contributor's new `square` kind does not clash with it.
constexpr const char* kind_name = "registry_test_square";

class SquareKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return kind_name; }
    void validate(const job::ParamMap& /*params*/, const JobView& /*job*/) const override {}
    std::vector<io::FieldSpec> fields(const job::ParamMap& /*params*/) const override
    {
        return {{"square", io::DType::int64, {}, ""}};
    }
    TaskOutcome run(const TaskContext& /*context*/) const override { return {}; }
};

TEST(TaskKindRegistry, BuiltInKindsComeInTheDocumentedOrderAndMakeThemselves)
{
    const std::vector<std::string> built_in = {"exec", "noop", "train", "gemm", "blur", "heat2d", "montecarlo", "embed"};

    const auto names = task_kind_names();

    ASSERT_GE(names.size(), built_in.size());
    EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + built_in.size()), built_in);
    for (const auto& name : built_in) {
        const auto* entry = find_task_kind(name);
        ASSERT_NE(entry, nullptr) << name;
        EXPECT_EQ(entry->name, name);
        ASSERT_NE(entry->params, nullptr) << name;
        EXPECT_EQ(entry->make(spec_of(name))->name(), name);
        EXPECT_EQ(make_task_kind(spec_of(name))->name(), name);
    }
}

TEST(TaskKindRegistry, UnknownNameIsNoKind)
{
    EXPECT_EQ(find_task_kind("nonsense"), nullptr);
    EXPECT_THROW(make_task_kind(spec_of("nonsense")), JobFileError);
}

TEST(TaskKindRegistry, RegisteredKindJoinsTheSameTableAfterTheBuiltIns)
{
    const auto before = task_kinds().size();
    ParamTable params{{integer_param("n", 1, above(0), "the number squared")}};

    register_task_kind(kind_name, [](const job::JobSpec&) { return std::make_unique<SquareKind>(); }, params,
                       "squares params.n");

    ASSERT_EQ(task_kinds().size(), before + 1);
    const auto& entry = task_kinds().back();
    EXPECT_EQ(entry.name, kind_name);
    EXPECT_EQ(entry.summary, "squares params.n");
    EXPECT_EQ(find_task_kind(kind_name), &entry);
    ASSERT_NE(entry.params->find("n"), nullptr);
    EXPECT_NE(entry.params->find("device"), nullptr) << "every closed table takes device";
    EXPECT_EQ(task_kind_names().back(), kind_name);
    EXPECT_EQ(make_task_kind(spec_of(kind_name))->name(), kind_name);
}

TEST(TaskKindRegistry, RegistrationRefusesTakenEmptyAndFactorylessNames)
{
    const auto make = [](const job::JobSpec&) { return std::make_unique<SquareKind>(); };
    const auto before = task_kinds().size();

    EXPECT_THROW(register_task_kind("blur", make), std::invalid_argument);
    EXPECT_THROW(register_task_kind("", make), std::invalid_argument);
    EXPECT_THROW(register_task_kind("cube", TaskKindFactory{}), std::invalid_argument);

    EXPECT_EQ(task_kinds().size(), before);
    EXPECT_EQ(find_task_kind("cube"), nullptr);
}

}  // namespace
}  // namespace shardrun::tasks
