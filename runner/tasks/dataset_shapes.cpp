#include "runner/tasks/dataset_shapes.hpp"

namespace shardrun::tasks {

const io::DatasetInfo& DatasetShapes::describe(const std::string& location)
{
    auto it = seen_.find(location);
    if (it == seen_.end()) {
        std::variant<io::DatasetInfo, std::string> seen;
        try {
            seen = io::describe_dataset(io::parse_dataset_location(location));
        } catch (const io::InputError& error) {
            seen = std::string(error.what());
        }
        it = seen_.emplace(location, std::move(seen)).first;
    }
    if (const auto* problem = std::get_if<std::string>(&it->second)) SHARDRUN_THROW(io::InputError, *problem);
    return std::get<io::DatasetInfo>(it->second);
}

}  // namespace shardrun::tasks
