#include <cmath>
#include <vector>

#include "io/input/dataset_reader.hpp"
#include "kernels/common/seeded.hpp"
#include "kernels/embed/embed.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/tasks/dataset_shapes.hpp"
#include "runner/tasks/device_param.hpp"
#include "runner/tasks/kernel_kind_support.hpp"
#include "runner/tasks/param_table.hpp"
#include "runner/tasks/registry.hpp"

// Input rows: data.input FILE.h5:/rows float32 [N, input_dim], or seeded synthetic rows.
namespace shardrun::tasks {
namespace {

/** `task: embed`: the built-in embed kernel (see docs of kernels/embed/embed.hpp for its parameters). */
class EmbedKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "embed"; }
    /** The parameters `task: embed` takes (`shardrun kinds embed` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

using namespace kernel_support;

kernels::EmbedShape read_shape(const job::ParamMap& given)
{
    const auto params = EmbedKind::parameters().with_defaults(given);
    kernels::EmbedShape shape;
    shape.rows = params.integer_or("chunk", 1);  // the runner sets chunk to data.chunk; 1 without data:
    shape.input_dim = params.integer("input_dim");
    shape.output_dim = params.integer("output_dim");
    validate_params([&] { shape.activation = kernels::parse_activation(params.text("activation")); });
    return shape;
}

std::vector<float> read_matrix(const std::string& spec, std::uint64_t start, std::uint64_t end, std::int64_t columns,
                               const char* what)
{
    const auto location = io::parse_dataset_location(spec);
    io::DatasetInfo info;
    auto values = io::read_float32_rows(location, start, end, 2, what, &info);
    if (info.dims[1] != static_cast<std::uint64_t>(columns)) {
        SHARDRUN_THROW(io::InputError, location.text() + ": has " + std::to_string(info.dims[1]) + " columns; " + what +
                                       " needs " + std::to_string(columns));
    }
    return values;
}

std::vector<float> load_weights(const job::ParamMap& params, const kernels::EmbedShape& shape)
{
    if (params.contains("weights")) {
        return read_matrix(params.text("weights"), 0, static_cast<std::uint64_t>(shape.input_dim), shape.output_dim,
                           "weights [input_dim, output_dim]");
    }
    std::vector<float> weights(shape.input_dim * shape.output_dim);
    const float bound = std::sqrt(3.0f / static_cast<float>(shape.input_dim));  // variance 1/input_dim
    const auto seed = static_cast<std::uint64_t>(EmbedKind::parameters().with_defaults(params).integer("weight_seed"));
    kernels::fill_seeded(weights.data(), weights.size(), seed, 0, -bound, bound);
    return weights;
}

void check_input(const io::DatasetInfo& input, const kernels::EmbedShape& shape)
{
    if (input.dims.size() != 2 || input.dtype != "float32") {
        SHARDRUN_THROW(JobFileError, fmt::format("data.input: holds {}; embed needs float32 rows [N, input_dim]", dataset_text(input)));
    }
    if (input.dims[1] != static_cast<std::uint64_t>(shape.input_dim)) {
        SHARDRUN_THROW(JobFileError, fmt::format("params.input_dim: {} but the rows of data.input have {} columns; set input_dim: {}",
                                                 shape.input_dim, input.dims[1], input.dims[1]));
    }
}

void check_weights(const std::string& spec, const kernels::EmbedShape& shape, DatasetShapes* datasets)
{
    io::DatasetInfo info;
    try {
        info = datasets != nullptr ? datasets->describe(spec) : io::describe_dataset(io::parse_dataset_location(spec));
    } catch (const io::InputError& error) {
        SHARDRUN_THROW(JobFileError, fmt::format("params.weights: {}", error.what()));
    }
    const std::vector<std::uint64_t> expected = {static_cast<std::uint64_t>(shape.input_dim),
                                                 static_cast<std::uint64_t>(shape.output_dim)};
    if (info.dims != expected || info.dtype != "float32") {
        SHARDRUN_THROW(JobFileError, fmt::format("params.weights: '{}' holds {}; embed needs float32 [input_dim, output_dim] = "
                                                 "[{}, {}]",
                                                 spec, dataset_text(info), shape.input_dim, shape.output_dim));
    }
}

}  // namespace

const ParamTable& EmbedKind::parameters()
{
    static const ParamTable table{{
        integer_param("input_dim", 64, above(0), "columns of each input row"),
        integer_param("output_dim", 32, above(0), "columns of each embedding"),
        choice_param("activation", "gelu", {"gelu", "relu", "tanh", "identity"}, "applied to X W before normalising"),
        integer_param("chunk", computed("data.chunk, else 1"), above(0), "rows per task (the embedding field's first dimension)"),
        integer_param("seed", 0, at_least(0), "seed of the synthetic rows (jobs without data.input)"),
        integer_param("weight_seed", 1, at_least(0), "seed of the random weights (without params.weights)"),
        text_param("weights", computed("none"), "FILE.h5:/dataset of float32 weights [input_dim, output_dim]"),
        device_param(),
    }};
    return table;
}

void EmbedKind::validate(const job::ParamMap& params, const JobView& job) const
{
    const auto shape = read_shape(params);
    validate_params([&] { kernels::validate_embed(shape); });
    require_whole_chunks(shape.rows, job, "rows");
    if (job.input != nullptr) check_input(*job.input, shape);
    if (params.contains("weights")) check_weights(params.text("weights"), shape, job.datasets);
}

std::vector<io::FieldSpec> EmbedKind::fields(const job::ParamMap& params) const
{
    const auto s = read_shape(params);
    return {{"embedding", io::DType::float32, {static_cast<std::size_t>(s.rows), static_cast<std::size_t>(s.output_dim)}, ""},
            {"rows", io::DType::int64, {}, ""},
            seconds_field()};
}

TaskOutcome EmbedKind::run(const TaskContext& context) const
{
    return run_guarded(name(), [&] {
        const auto chunk = read_shape(*context.params);
        const std::uint64_t start = context.range ? context.range->start : 0;
        const std::uint64_t end = context.range ? context.range->end : start + chunk.rows;
        // validate() refuses this for the sweep points it checks (the first 100000); the rest land here.
        if (end - start > static_cast<std::uint64_t>(chunk.rows)) {
            SHARDRUN_THROW(JobFileError, "params.chunk: a task got " + std::to_string(end - start) + " rows but params.chunk is " +
                                         std::to_string(chunk.rows) + "; set params.chunk to data.chunk");
        }
        auto shape = chunk;
        shape.rows = static_cast<std::int64_t>(end - start);
        std::vector<float> rows;
        if (context.input.empty()) {
            rows.resize(shape.rows * shape.input_dim);
            const auto seed = static_cast<std::uint64_t>(parameters().with_defaults(*context.params).integer("seed"));
            kernels::fill_seeded(rows.data(), rows.size(), seed, start * shape.input_dim, -1.0f, 1.0f);
        } else {
            rows = read_matrix(context.input, start, end, shape.input_dim, "rows [N, input_dim]");
        }
        const auto weights = load_weights(*context.params, shape);
        std::vector<float> embedding(shape.rows * shape.output_dim);
        const auto device = device_of(context);
        const double seconds = kernel_seconds(device, [&] {
            kernels::embed(device, shape, rows.data(), weights.data(), embedding.data());  // E = normalise(act(X · W))
        });
        const auto elements = static_cast<std::size_t>(chunk.rows * chunk.output_dim);
        return io::TaskValues{array_bytes(embedding.data(), embedding.size(), elements), scalar_bytes(shape.rows),
                              scalar_bytes(seconds)};
    });
}

TaskKindEntry embed_kind_entry()
{
    return {"embed", "rows of data.input (or synthetic ones) times a weight matrix, activated, unit length",
            &EmbedKind::parameters(), [](const job::JobSpec&) { return std::make_unique<EmbedKind>(); }, true};
}

}  // namespace shardrun::tasks
