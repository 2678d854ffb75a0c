#include "runner/process/results/result_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "io/input/result_datasets.hpp"
#include "runner/process/results/result_json.hpp"
#include "runner/process/results/result_npy.hpp"
#include "runner/process/results/task_shapes.hpp"

namespace fs = std::filesystem;

namespace shardrun::process {
namespace {

bool exists(const std::string& path)
{
    std::error_code ignored;
    return fs::exists(fs::symlink_status(path, ignored));
}

std::string missing_message(const io::FieldSpec& field)
{
    return fmt::format("results field '{}' was not written: no $SHARDRUN_RESULT_DIR/{}.npy, no dataset /{} in "
                       "$SHARDRUN_RESULT_H5 and no $SHARDRUN_RESULT",
                       field.name, field.name, field.name);
}

}  // namespace

ResultChannels result_channels(const std::string& task_dir)
{
    const auto dir = fs::absolute(task_dir).lexically_normal().string();
    return {dir + "/result.json", dir, dir + "/result.h5"};
}

std::vector<std::string> result_file_names(const std::vector<io::FieldSpec>& fields)
{
    std::vector<std::string> names{"result.json", "result.h5"};
    for (const auto& field : fields) names.push_back(field.name + ".npy");
    return names;
}

void remove_result_files(const ResultChannels& channels, const std::vector<io::FieldSpec>& fields)
{
    std::error_code ignored;
    // remove() takes a symlink itself away, never what it points to.
    for (const auto& name : result_file_names(fields)) fs::remove(channels.dir + "/" + name, ignored);
}

void remove_files(const std::vector<std::string>& files)
{
    std::error_code ignored;
    for (const auto& file : files) fs::remove(file, ignored);
}

std::variant<io::TaskValues, std::string> read_task_results(const ResultChannels& channels,
                                                            const std::vector<io::FieldSpec>& fields,
                                                            const std::vector<io::FieldSpec>& shapes,
                                                            std::vector<std::string>* read_files)
{
    io::TaskValues values(fields.size());
    std::vector<bool> from_files(fields.size(), false);
    for (std::size_t f = 0; f < fields.size(); ++f) {
        if (!exists(channels.npy(shapes[f]))) continue;
        auto read = read_npy_field(channels.npy(shapes[f]), shapes[f], shapes[f].shape);
        if (auto* reason = std::get_if<std::string>(&read)) return *reason;
        values[f] = std::move(std::get<std::vector<std::byte>>(read));
        from_files[f] = true;
        if (read_files) read_files->push_back(channels.npy(shapes[f]));
    }
    if (exists(channels.h5)) {
        if (read_files) read_files->push_back(channels.h5);
        auto found = io::read_result_datasets(channels.h5, shapes);
        if (auto* reason = std::get_if<std::string>(&found)) return *reason;
        auto& datasets = std::get<io::FoundValues>(found);
        for (std::size_t f = 0; f < fields.size(); ++f) {
            if (!datasets[f]) continue;
            if (from_files[f]) {
                return fmt::format("results field '{}' is given twice: as {}.npy and in $SHARDRUN_RESULT_H5",
                                   fields[f].name, fields[f].name);
            }
            values[f] = std::move(*datasets[f]);
            from_files[f] = true;
        }
    }
    const bool json_written = exists(channels.json);
    const bool any_file = std::find(from_files.begin(), from_files.end(), true) != from_files.end();
    if (json_written && read_files) read_files->push_back(channels.json);
    if (json_written || !any_file) {
        auto parsed = read_result_json(channels.json, shapes, &from_files);
        if (auto* reason = std::get_if<std::string>(&parsed)) return *reason;
        auto& json_values = std::get<io::TaskValues>(parsed);
        for (std::size_t f = 0; f < fields.size(); ++f) {
            if (!from_files[f]) values[f] = std::move(json_values[f]);
        }
    } else {
        for (std::size_t f = 0; f < fields.size(); ++f) {
            if (!from_files[f]) return missing_message(fields[f]);
        }
    }
    pad_to_declared(values, shapes, fields);
    return values;
}

}  // namespace shardrun::process
