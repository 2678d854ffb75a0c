#pragma once

#include <map>
#include <string>
#include <variant>

#include "io/input/dataset_reader.hpp"

namespace shardrun::tasks {

/**
 * Shapes and dtypes of the HDF5 datasets a job's parameters name (embed's params.weights),
 * each file opened once per job however many sweep points name it. Not thread-safe.
 */
class DatasetShapes {
public:
    /**
     * @param location  "file.h5:/dataset"
     * @throws io::InputError as io::describe_dataset() does, the same one for the same location
     */
    const io::DatasetInfo& describe(const std::string& location);

private:
    std::map<std::string, std::variant<io::DatasetInfo, std::string>> seen_;  ///< the shape, or why not
};

}  // namespace shardrun::tasks
