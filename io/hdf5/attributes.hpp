#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardrun::io::hdf5 {

/** Writes (or replaces) a scalar attribute on `object` (a file, group or dataset id). */
void write_attr(hid_t object, const std::string& name, const std::string& value);
void write_attr(hid_t object, const std::string& name, std::int64_t value);
void write_attr(hid_t object, const std::string& name, double value);
/** A bool as h5py stores numpy bools (int8 enum FALSE/TRUE), so Python sees True/False. */
void write_bool_attr(hid_t object, const std::string& name, bool value);
/** A 1-D attribute of variable-length strings. */
void write_attr(hid_t object, const std::string& name, const std::vector<std::string>& values);

/** Reads a string attribute; nullopt when absent. @throws Hdf5Error when unreadable */
std::optional<std::string> read_string_attr(hid_t object, const std::string& name);
/** Reads an integer (or bool) attribute; nullopt when absent. */
std::optional<std::int64_t> read_int_attr(hid_t object, const std::string& name);
/** Reads a 1-D string attribute; empty when absent. */
std::vector<std::string> read_string_list_attr(hid_t object, const std::string& name);
/** Reads a bool attribute written by write_bool_attr(); nullopt when absent. */
std::optional<bool> read_bool_attr(hid_t object, const std::string& name);
/** Reads a float attribute; nullopt when absent. */
std::optional<double> read_double_attr(hid_t object, const std::string& name);

}  // namespace shardrun::io::hdf5
