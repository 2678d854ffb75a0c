// The committed sources of an element, as both front ends of the row gatherer walk them.
#include "io/gather/element_sources.hpp"

#include "io/layout/output_layout.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {

void for_each_element_source(const std::string& path, int array_index, const std::function<void(const fs::path&)>& segment,
                             const std::function<void(const fs::path&)>& single)
{
    for (const int rank : layout::rank_indexes(path, array_index)) {
        for (const auto& file : layout::segments(layout::rank_dir(path, array_index, rank))) segment(file);
    }
    const auto file = layout::single_path(path, array_index);
    if (fs::exists(file)) single(file);
}

std::string not_committed(const fs::path& file, const std::string& why)
{
    return file.string() + ": " + why + "; its tasks are treated as not committed";
}

}  // namespace shardrun::io
