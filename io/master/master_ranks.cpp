// /ranks of a master: what each rank of a run did besides its tasks (its exec workers' load).
#include <hdf5.h>

#include <vector>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/dimension_scales.hpp"
#include "io/hdf5/handle.hpp"
#include "io/master/master_file.hpp"

namespace shardrun::io::master {

void write_ranks(hid_t file, const std::vector<RankRow>& rows)
{
    // A finished single file that --resume finishes again: this run's rows replace the last run's.
    if (hdf5::has_link(file, "ranks")) SHARDRUN_H5_CHECK(H5Ldelete(file, "ranks", H5P_DEFAULT));
    auto group = hdf5::ensure_group(file, "ranks");
    std::vector<std::int32_t> elements, ranks;
    std::vector<double> seconds;
    for (const auto& row : rows) {
        elements.push_back(row.array_index);
        ranks.push_back(row.rank);
        seconds.push_back(row.startup_seconds);
    }
    auto element = hdf5::write_column(group.get(), "array_index", H5T_STD_I32LE, H5T_NATIVE_INT32, elements.data(), rows.size());
    auto rank = hdf5::write_column(group.get(), "rank", H5T_STD_I32LE, H5T_NATIVE_INT32, ranks.data(), rows.size());
    auto startup = hdf5::write_column(group.get(), "startup_seconds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, seconds.data(),
                                      rows.size());
    hdf5::write_attr(startup.get(), "units", std::string("s"));
    hdf5::write_attr(startup.get(), "long_name", std::string("exec workers' load, spawn to ready line (not in any task's seconds)"));
    // Its own netCDF dimension, as /attempts has: xarray opens the group with no options.
    auto row = hdf5::create_bare_dimension(file, group.get(), "row", rows.size());
    for (auto* dataset : {&element, &rank, &startup}) hdf5::attach_dimension_scale(dataset->get(), row.get(), 0);
}

}  // namespace shardrun::io::master
