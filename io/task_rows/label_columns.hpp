#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/hdf5/handle.hpp"

namespace shardrun::io {

/**
 * @internal /tasks/host and /tasks/device of a master: int32 codes on `task` plus the
 * coordinate `<column>_label` (its own dimension) holding each code's text, code 0 being ""
 * (no host yet: a pending row). A variable-length string per row costs an HDF5 global-heap
 * object (most of a merge's CPU at 1e6 tasks); a code costs 4 bytes. io/README.md says why
 * not an HDF5 enum (netCDF-C 4.9 skips enum variables, xarray shows their integers anyway).
 *
 * xarray: `tasks.host_label[tasks.host]` gives the names over `task`.
 */
class LabelCodes {
public:
    LabelCodes();
    /** The code of `value`, adding it as a new label the first time it is seen. */
    std::int32_t code(const std::string& value);
    const std::vector<std::string>& labels() const noexcept { return labels_; }

private:
    std::vector<std::string> labels_;
    std::unordered_map<std::string, std::int32_t> index_;
    std::int32_t last_ = 0;  ///< rows of a block mostly repeat the previous value: checked before hashing
};

/** "<column>_label": the coordinate holding the texts of /tasks/<column>'s codes. */
std::string label_coordinate_name(const std::string& column);

/** Creates /tasks/<name> (int32, `rows` long, HDF5 fill value 0: no value) under `group`. */
hdf5::Dataset create_code_column(hid_t group, const std::string& name, std::uint64_t rows);

/** Writes `values` as the codes of rows [first, first + values.size()) of `dataset`, adding labels to `codes`. */
void write_codes_block(hid_t dataset, LabelCodes& codes, std::uint64_t first, const std::vector<std::string>& values);

/**
 * Writes `codes`' texts as /<group>/<name>_label (variable-length UTF-8; replaced when there),
 * made the netCDF coordinate variable of its own dimension, and names it in the attribute
 * `labels` of the code column. Call after the last write_codes_block().
 */
void write_code_labels(hid_t file, hid_t group, const std::string& name, const LabelCodes& codes);

/**
 * Rows [first, first + count) of /<group>/<name> as texts: int32 codes with their labels (a
 * master), fixed-length strings (segments, a running single file) or variable-length ones
 * (masters written before the codes).
 */
std::vector<std::string> read_text_column(hid_t group, const std::string& name, std::uint64_t first, std::size_t count);

/** Whether /<group>/<name> holds codes (and has its label coordinate). */
bool is_code_column(hid_t group, const std::string& name);

}  // namespace shardrun::io
