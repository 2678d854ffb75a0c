// layout single's last step: the element's data file turned into a master in place, a block
// of rows at a time. Here, not in master/, because it rewrites the single file's own
// fixed-length host and device columns (single_sink.hpp) and uses the master's writers.
#include "io/single/single_finish.hpp"

#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"
#include "io/single/single_sink.hpp"
#include "io/task_rows/row_failures_group.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::single {
namespace {

/**
 * Writes the fill value into the rows of [first, first + status.size()) without results: not
 * ok, and not a chunk whose failed rows were found (its other rows have results, `row_failures`).
 */
void fill_block(const std::vector<hdf5::Dataset>& results, const std::vector<FieldSpec>& fields, std::uint64_t first,
                const std::vector<std::int8_t>& status, const std::vector<std::string>& row_failures)
{
    constexpr auto ok = static_cast<std::int8_t>(TaskStatus::ok);
    const auto has_results = [&](std::size_t i) { return status[i] == ok || !row_failures[i].empty(); };
    for (std::size_t i = 0; i < status.size();) {
        if (has_results(i)) {
            ++i;
            continue;
        }
        auto j = i;
        while (j < status.size() && !has_results(j)) ++j;
        for (std::size_t f = 0; f < fields.size(); ++f) {
            std::vector<std::byte> fill;
            append_fill(fill, fields[f], j - i);
            hdf5::write_field_block(results[f].get(), fields[f], first + i, j - i, fill.data());
        }
        i = j;
    }
}

}  // namespace

StatusCounts finish_single_streamed(const fs::path& single, const fs::path& target, const master::MasterInfo& info)
{
    hdf5::silence_hdf5_errors();
    StatusCounts counts;
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(single.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
        master::write_params(file.get(), info);
        {
            auto status = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file.get(), "tasks/status", H5P_DEFAULT));
            std::vector<hdf5::Dataset> results;
            for (const auto& field : info.fields) {
                results.push_back(SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file.get(), ("results/" + field.name).c_str(), H5P_DEFAULT)));
            }
            const std::uint64_t rows = hdf5::dataset_length(status.get());
            const auto status_type = hdf5::status_enum_type();
            TaskRows block;
            for (std::uint64_t first = 0; first < rows; first += stream_block_rows()) {
                const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(stream_block_rows(), rows - first));
                block.status = hdf5::read_column_block<std::int8_t>(status.get(), status_type.get(), first, n);
                fill_block(results, info.fields, first, block.status, read_row_failure_lines(file.get(), "attempts", first, n));
                counts.add(block);
            }
        }
        set_task_string_form(file.get(), false);
        master::finish_master_file(file.get(), info, info.metadata.task_count, counts, info.complete && counts.pending == 0);
        file.close();
    } catch (const Hdf5Error& error) {
        SHARDRUN_THROW(WriteError, master::write_failed_message("cannot finish " + single.string(), error));
    }
    if (!target.empty()) master::publish(single, target);
    return counts;
}

}  // namespace shardrun::io::single
