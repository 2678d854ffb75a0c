#include <vector>

#include "io/input/dataset_reader.hpp"
#include "kernels/blur/blur.hpp"
#include "kernels/common/seeded.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/tasks/auto_device_rules.hpp"
#include "runner/tasks/device_param.hpp"
#include "runner/tasks/kernel_kind_support.hpp"
#include "runner/tasks/param_table.hpp"
#include "runner/tasks/registry.hpp"

// Input: data.input FILE.h5:/images [N, height, width] float32, or seeded synthetic images.
namespace shardrun::tasks {
namespace {

/** `task: blur`: the built-in blur kernel (see docs of kernels/blur/blur.hpp for its parameters). */
class BlurKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "blur"; }
    /** The parameters `task: blur` takes (`shardrun kinds blur` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

using namespace kernel_support;

bool keeps_blurred(const job::ParamMap& params)
{
    return BlurKind::parameters().with_defaults(params).text("blurred") != "drop";
}

kernels::BlurShape read_shape(const job::ParamMap& given)
{
    const auto params = BlurKind::parameters().with_defaults(given);
    kernels::BlurShape shape;
    shape.images = params.integer_or("chunk", 1);  // the runner sets chunk to data.chunk; 1 without data:
    shape.height = params.integer("height");
    shape.width = params.integer_or("width", shape.height);
    shape.sigma = params.number("sigma");
    return shape;
}

// The task's images: rows [start, end) of the input dataset, or seeded synthetic ones.
std::vector<float> load_images(const TaskContext& context, const kernels::BlurShape& shape, std::uint64_t start,
                               std::uint64_t end)
{
    const auto pixels = static_cast<std::uint64_t>(shape.height * shape.width);
    if (context.input.empty()) {
        std::vector<float> images((end - start) * pixels);
        const auto seed = static_cast<std::uint64_t>(BlurKind::parameters().with_defaults(*context.params).integer("seed"));
        kernels::fill_seeded(images.data(), images.size(), seed, start * pixels, 0.0f, 1.0f);
        return images;
    }
    const auto location = io::parse_dataset_location(context.input);
    io::DatasetInfo info;
    auto images = io::read_float32_rows(location, start, end, 3, "[N, height, width]", &info);
    if (info.dims[1] != static_cast<std::uint64_t>(shape.height) || info.dims[2] != static_cast<std::uint64_t>(shape.width)) {
        SHARDRUN_THROW(io::InputError, location.text() + ": holds " + std::to_string(info.dims[1]) + "x" +
                                       std::to_string(info.dims[2]) + " images but params.height x params.width is " +
                                       std::to_string(shape.height) + "x" + std::to_string(shape.width));
    }
    return images;
}

void check_input(const io::DatasetInfo& input, const kernels::BlurShape& shape)
{
    if (input.dims.size() != 3 || input.dtype != "float32") {
        SHARDRUN_THROW(JobFileError, fmt::format("data.input: holds {}; blur needs float32 images [N, height, width]",
                                                 dataset_text(input)));
    }
    if (input.dims[1] != static_cast<std::uint64_t>(shape.height) || input.dims[2] != static_cast<std::uint64_t>(shape.width)) {
        SHARDRUN_THROW(JobFileError, fmt::format("params.height: data.input holds {}x{} images but params.height x params.width "
                                                 "is {}x{}; set both to the images' size",
                                                 input.dims[1], input.dims[2], shape.height, shape.width));
    }
}

}  // namespace

const ParamTable& BlurKind::parameters()
{
    static const ParamTable table{{
        integer_param("height", 256, above(0), "image rows"),
        integer_param("width", computed("height"), above(0), "image columns"),
        number_param("sigma", 2.0, above_up_to(0, kernels::blur_max_sigma), "standard deviation of the Gaussian, in pixels"),
        integer_param("chunk", computed("data.chunk, else 1"), above(0), "images per task (the blurred field's first dimension)"),
        integer_param("seed", 0, at_least(0), "seed of the synthetic images (jobs without data.input)"),
        choice_param("blurred", "keep", {"keep", "drop"},
                     "drop: leave the blurred images out of the results (timing runs; then sizes may be swept)"),
        device_param(),
    }};
    return table;
}

void BlurKind::validate(const job::ParamMap& params, const JobView& job) const
{
    const auto shape = read_shape(params);
    validate_params([&] { kernels::validate_blur(shape); });
    require_whole_chunks(shape.images, job, "images");
    if (job.input != nullptr) check_input(*job.input, shape);
}

std::vector<io::FieldSpec> BlurKind::fields(const job::ParamMap& params) const
{
    const auto s = read_shape(params);
    std::vector<io::FieldSpec> fields{{"images", io::DType::int64, {}, ""}, seconds_field()};
    if (keeps_blurred(params)) {
        fields.insert(fields.begin(), {"blurred", io::DType::float32,
                                       {static_cast<std::size_t>(s.images), static_cast<std::size_t>(s.height),
                                        static_cast<std::size_t>(s.width)},
                                       ""});
    }
    return fields;
}

TaskOutcome BlurKind::run(const TaskContext& context) const
{
    return run_guarded(name(), [&] {
        const auto chunk = read_shape(*context.params);
        const std::uint64_t start = context.range ? context.range->start : 0;
        const std::uint64_t end = context.range ? context.range->end : start + chunk.images;
        // validate() refuses this for the sweep points it checks (the first 100000); the rest land here.
        if (end - start > static_cast<std::uint64_t>(chunk.images)) {
            SHARDRUN_THROW(JobFileError, "params.chunk: a task got " + std::to_string(end - start) + " images but params.chunk is " +
                                         std::to_string(chunk.images) + "; set params.chunk to data.chunk");
        }
        auto shape = chunk;
        shape.images = static_cast<std::int64_t>(end - start);
        const auto images = load_images(context, shape, start, end);
        std::vector<float> blurred(images.size());
        const auto device = device_of(context);
        const double seconds = kernel_seconds(device, [&] {
            kernels::blur(device, shape, images.data(), blurred.data());  // G_sigma * image
        });
        io::TaskValues values{scalar_bytes(shape.images), scalar_bytes(seconds)};
        if (keeps_blurred(*context.params)) {
            const auto elements = static_cast<std::size_t>(chunk.images * chunk.height * chunk.width);
            values.insert(values.begin(), array_bytes(blurred.data(), blurred.size(), elements));
        }
        return values;
    });
}

TaskKindEntry blur_kind_entry()
{
    return {"blur", "Gaussian blur of images from data.input (or synthetic ones), a chunk of images per task",
            &BlurKind::parameters(), [](const job::JobSpec&) { return std::make_unique<BlurKind>(); }, true,
            blur_cpu_if()};
}

}  // namespace shardrun::tasks
