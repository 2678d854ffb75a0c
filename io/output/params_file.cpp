#include "io/output/params_file.hpp"

#include <cerrno>
#include <cstdio>

#include "io/hdf5/handle.hpp"
#include "io/layout/output_layout.hpp"
#include "io/master/master_file.hpp"
#include "io/task_rows/item_id_column.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
void write_params_file(const fs::path& file, const ParamSource& source)
{
    hdf5::silence_hdf5_errors();
    const fs::path temp = file.string() + ".tmp";
    layout::clear_for_create(temp);
    try {
        auto h5 = SHARDRUN_H5_OPEN(File, H5Fcreate(temp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
        master::write_params(h5.get(), source);
        // For merge: the master labels its items with them (FileParamSource reads them back).
        if (const auto* ids = source.item_ids()) master::write_item_id_column(h5.get(), "item_ids", *ids, ids->size());
        h5.close();
    } catch (const Hdf5Error& error) {
        std::remove(temp.c_str());  // `h5` closed without poisoning HDF5 (handle.hpp): nothing is left open
        SHARDRUN_THROW(WriteError, "cannot write " + temp.string() + ": " + error.cause() + "; free disk space and rerun with --resume");
    }
    if (!layout::sync_path(temp) || std::rename(temp.c_str(), file.c_str()) != 0) {
        const int saved = errno;
        std::remove(temp.c_str());
        layout::throw_write_error("cannot write " + file.string(), saved, "check free space, then rerun with --resume");
    }
}

}  // namespace shardrun::io
