#include "runner/run/setup/data_input.hpp"

#include <fmt/format.h>

#include "io/input/dataset_reader.hpp"
#include "io/input/line_index.hpp"
#include "base/documented_error.hpp"
#include "runner/errors.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/job/yaml_context.hpp"
#include "runner/run/error_message.hpp"
#include "runner/run/setup/parquet_input.hpp"
#include "runner/storage/remote_dataset.hpp"
#include "runner/storage/remote_line_input.hpp"
#include "runner/storage/staged_input.hpp"

namespace shardrun::run {
namespace {

/** A line or Parquet input's records, as the "dataset" [records] of dtype = the format. */
io::DatasetInfo describe_records(const job::JobSpec& spec)
{
    const auto& input = spec.data.input;
    std::uint64_t records = 0;
    if (spec.data.format == "parquet") {
        const auto path = storage::is_remote(input) ? storage::stage_object(*storage::parse_remote(input)) : input;
        records = read_parquet_rows(path, "").rows;
    } else if (storage::is_remote(input)) {
        records = storage::remote_line_records(*storage::parse_remote(input), *io::line_format_named(spec.data.format));
    } else {
        records = io::local_line_index(input, *io::line_format_named(spec.data.format)).records;
    }
    return io::DatasetInfo{{records}, spec.data.format};
}

}  // namespace

io::DatasetInfo read_input(const job::JobSpec& spec)
{
    const auto where = spec.sites.value("data.input", spec.file);
    io::DatasetInfo info;
    try {
        if (spec.data.format != "hdf5") {
            info = describe_records(spec);
        } else {
            info = storage::is_remote(spec.data.input) ? storage::describe_remote_dataset(spec.data.input)
                                                       : io::describe_dataset(io::parse_dataset_location(spec.data.input));
        }
    } catch (const Error& error) {  // InputError, and for a remote input UsageError or TransferError
        // A bucket's failure keeps its docs pointer (#bucket-errors), as status and run give it.
        if (const char* docs = docs_of(error)) {
            SHARDRUN_THROW_DOCUMENTED(JobFileError, docs, job::located(where, "data.input", error.what()));
        }
        SHARDRUN_THROW(JobFileError, job::located(where, "data.input", error.what()));
    }
    if (info.dims.empty()) {
        SHARDRUN_THROW(JobFileError, job::located(
            where, "data.input", fmt::format("'{}' is a scalar; it needs a first dimension to split", spec.data.input)));
    }
    if (info.dims.front() == 0 && spec.data.format != "hdf5") {
        SHARDRUN_THROW(JobFileError, job::located(where, "data.input", fmt::format("'{}' holds no records", spec.data.input)));
    }
    return info;
}

std::string stage_remote_input(const job::JobSpec& spec)
{
    if (spec.data.format == "hdf5") return storage::stage_input(spec.data.input);
    const auto remote = storage::parse_remote(spec.data.input);
    if (!remote) SHARDRUN_THROW(UsageError, "'" + spec.data.input + "' is not in object storage");
    if (spec.data.format == "parquet") return storage::stage_object(*remote);
    return storage::stage_line_input(*remote, *io::line_format_named(spec.data.format));
}

std::shared_ptr<const io::ItemIds> read_item_ids(const job::JobSpec& spec)
{
    if (spec.data.id.empty() || storage::is_remote(spec.data.input)) return nullptr;
    const auto where = spec.sites.value("data.id", spec.file);
    try {
        if (spec.data.format == "parquet") {
            auto ids = std::make_shared<io::ItemIds>(*read_parquet_rows(spec.data.input, spec.data.id).ids);
            if (const auto repeat = io::first_repeated_id(*ids)) {
                SHARDRUN_THROW(io::InputError, fmt::format("{}: row {}: {} '{}' repeats the id of row {}; ids must be unique",
                                                       spec.data.input, repeat->second, spec.data.id,
                                                       io::id_text(*ids, repeat->second), repeat->first));
            }
            return ids;
        }
        const auto format = *io::line_format_named(spec.data.format);
        return std::make_shared<io::ItemIds>(
            io::read_item_ids(spec.data.input, io::local_line_index(spec.data.input, format), spec.data.id));
    } catch (const Error& error) {
        SHARDRUN_THROW(JobFileError, job::located(where, "data.id", error.what()));
    }
}

}  // namespace shardrun::run
