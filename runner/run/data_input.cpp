#include "runner/run/data_input.hpp"

#include "runner/errors.hpp"

namespace shardrun::run {

// Replaced by the io dataset reader when it lands (same session).
std::uint64_t input_items(const job::JobSpec& spec)
{
    throw JobFileError(spec.file + ": data.input: reading items from an HDF5 dataset is not built yet; use data.items");
}

}  // namespace shardrun::run
