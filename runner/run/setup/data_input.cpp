#include "runner/run/setup/data_input.hpp"

#include <fmt/format.h>

#include "runner/errors.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/job/yaml_context.hpp"
#include "runner/storage/remote_dataset.hpp"

namespace shardrun::run {

io::DatasetInfo read_input(const job::JobSpec& spec)
{
    const auto where = spec.sites.value("data.input", spec.file);
    io::DatasetInfo info;
    try {
        info = storage::is_remote(spec.data.input) ? storage::describe_remote_dataset(spec.data.input)
                                                   : io::describe_dataset(io::parse_dataset_location(spec.data.input));
    } catch (const Error& error) {  // InputError, and for a remote input UsageError or TransferError
        SHARDRUN_THROW(JobFileError, job::located(where, "data.input", error.what()));
    }
    if (info.dims.empty()) {
        SHARDRUN_THROW(JobFileError, job::located(
            where, "data.input", fmt::format("'{}' is a scalar; it needs a first dimension to split", spec.data.input)));
    }
    return info;
}

}  // namespace shardrun::run
