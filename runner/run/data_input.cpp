#include "runner/run/data_input.hpp"

#include <fmt/format.h>

#include "io/input/dataset_reader.hpp"
#include "runner/errors.hpp"

namespace shardrun::run {

std::uint64_t input_items(const job::JobSpec& spec)
{
    try {
        const auto info = io::describe_dataset(io::parse_dataset_location(spec.data.input));
        if (info.dims.empty()) {
            throw JobFileError(fmt::format("{}: data.input: '{}' is a scalar; it needs a first dimension to split",
                                           spec.file, spec.data.input));
        }
        return info.dims.front();
    } catch (const io::InputError& error) {
        throw JobFileError(fmt::format("{}: data.input: {}", spec.file, error.what()));
    }
}

}  // namespace shardrun::run
