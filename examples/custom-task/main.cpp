// A task kind of one's own under shardrun's scheduler and HDF5 output: `task: collatz` gives
// the Collatz stopping time of params.n (steps of n -> n/2 or 3n+1 until 1) and the highest
// value on the way. Everything else (sweeps, ranks, retries, resume, results) is shardrun's:
//
//   mpirun -np 2 ./collatz-runner run collatz.yaml
//   ./collatz-runner plan collatz.yaml --ranks 4
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "runner/cli/run_cli.hpp"
#include "runner/errors.hpp"
#include "runner/tasks/registry.hpp"

namespace {

using namespace shardrun;

std::vector<std::byte> bytes_of(std::int64_t value)
{
    std::vector<std::byte> bytes(sizeof value);
    std::memcpy(bytes.data(), &value, sizeof value);
    return bytes;
}

class CollatzKind : public tasks::TaskKind {
public:
    std::string_view name() const noexcept override { return "collatz"; }

    void validate(const job::ParamMap& params, const tasks::JobView& /*job*/) const override
    {
        if (params.integer("n") < 1) SHARDRUN_THROW(JobFileError, "params.n: must be at least 1");
    }

    /** /results/steps and /results/peak, one int64 per task. */
    std::vector<io::FieldSpec> fields(const job::ParamMap& /*params*/) const override
    {
        return {{"steps", io::DType::int64, {}, ""}, {"peak", io::DType::int64, {}, ""}};
    }

    tasks::TaskOutcome run(const tasks::TaskContext& context) const override
    {
        std::int64_t n = context.params->integer("n");
        std::int64_t steps = 0;
        std::int64_t peak = n;
        for (; n != 1; ++steps) {
            n = n % 2 == 0 ? n / 2 : 3 * n + 1;  // n -> n/2 | 3n+1
            peak = std::max(peak, n);
        }
        tasks::TaskOutcome outcome;
        outcome.values = {bytes_of(steps), bytes_of(peak)};
        return outcome;
    }
};

}  // namespace

int main(int argc, char** argv)
{
    // Every rank registers before the CLI runs; the job file then names it like a built-in kind.
    tasks::register_task_kind("collatz", [](const job::JobSpec&) { return std::make_unique<CollatzKind>(); });
    return cli::main(argc, argv);
}
