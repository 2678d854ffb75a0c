// Reading a results file back with the plain HDF5 C API, the way any other program would.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <sstream>

#include "io/attempt_log.hpp"

#include "output_test_support.hpp"

namespace shardrun::io::testing {
namespace {

std::size_t element_count(hid_t dataset)
{
    const hid_t space = H5Dget_space(dataset);
    const auto count = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
    H5Sclose(space);
    return count;
}

template <typename T>
std::vector<T> read_all(hid_t file, const std::string& name, hid_t memory_type)
{
    const hid_t dataset = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
    if (dataset < 0) throw std::runtime_error("no dataset " + name);
    std::vector<T> values(element_count(dataset));
    hid_t type = memory_type;
    const hid_t file_type = H5Dget_type(dataset);
    // Enums convert only to enums: read them through their own base type.
    if (H5Tget_class(file_type) == H5T_ENUM) type = H5Tget_native_type(file_type, H5T_DIR_DEFAULT);
    std::vector<std::int8_t> small(values.size());
    const bool as_int8 = type != memory_type;
    const herr_t status = H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, as_int8 ? (void*)small.data() : values.data());
    if (as_int8) {
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = small[i];
        H5Tclose(type);
    }
    H5Tclose(file_type);
    H5Dclose(dataset);
    if (status < 0) throw std::runtime_error("cannot read " + name);
    return values;
}

/** A whole 1-D dataset of variable-length strings. */
std::vector<std::string> read_vlen_strings(hid_t file, const std::string& name)
{
    const hid_t dataset = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
    if (dataset < 0) throw std::runtime_error("no dataset " + name);
    std::vector<char*> pointers(element_count(dataset), nullptr);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    const herr_t status = H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data());
    std::vector<std::string> values;
    for (char* text : pointers) {
        values.emplace_back(text ? text : "");
        H5free_memory(text);
    }
    H5Tclose(type);
    H5Dclose(dataset);
    if (status < 0) throw std::runtime_error("cannot read " + name);
    return values;
}

}  // namespace

std::vector<double> read_doubles(hid_t file, const std::string& name) { return read_all<double>(file, name, H5T_NATIVE_DOUBLE); }
std::vector<std::int64_t> read_ints(hid_t file, const std::string& name)
{
    return read_all<std::int64_t>(file, name, H5T_NATIVE_INT64);
}

std::string read_root_string(hid_t file, const std::string& name)
{
    const hid_t attr = H5Aopen(file, name.c_str(), H5P_DEFAULT);
    if (attr < 0) return "<missing>";
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    // The attributes are UTF-8; HDF5 1.10 has no ASCII <-> UTF-8 conversion path (an ASCII
    // read worked only once the process had cached a UTF-8 one).
    H5Tset_cset(type, H5T_CSET_UTF8);
    char* text = nullptr;
    H5Aread(attr, type, &text);
    std::string value = text ? text : "";
    H5free_memory(text);
    H5Tclose(type);
    H5Aclose(attr);
    return value;
}

std::string check_master(const std::string& path, std::uint64_t task_count, const std::vector<std::uint64_t>& pending)
{
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) return "cannot open " + path;
    const auto fields = test_fields();
    const auto status = read_ints(file, "tasks/status");
    const auto exit_code = read_ints(file, "tasks/exit_code");
    std::vector<std::vector<double>> values;
    for (const auto& field : fields) values.push_back(read_doubles(file, "results/" + field.name));
    H5Fclose(file);
    std::ostringstream problem;
    if (status.size() != task_count) return "status has " + std::to_string(status.size()) + " rows";
    for (std::uint64_t id = 0; id < task_count && problem.str().empty(); ++id) {
        const bool is_pending = std::find(pending.begin(), pending.end(), id) != pending.end();
        const int want = is_pending ? 0 : fails(id) ? 2 : 1;
        if (status[id] != want) problem << "task " << id << ": status " << status[id] << ", expected " << want;
        if (want == 2 && exit_code[id] != 40 + static_cast<int>(id % 5)) problem << "task " << id << ": exit code " << exit_code[id];
        for (std::size_t f = 0; f < fields.size() && problem.str().empty(); ++f) {
            for (std::size_t k = 0; k < fields[f].elements(); ++k) {
                const double got = values[f][id * fields[f].elements() + k];
                const bool fill = fields[f].dtype == DType::int32 ? got == -2147483648.0 : std::isnan(got);
                if (want == 1 ? got != expected_value(id, f, k) : !fill) {
                    problem << "task " << id << " field " << fields[f].name << "[" << k << "] = " << got;
                    break;
                }
            }
        }
    }
    return problem.str();
}

std::string check_reasons(const std::string& path, std::uint64_t task_count)
{
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) return "cannot open " + path;
    std::vector<std::string> messages, attempt_messages;
    std::vector<std::int64_t> task, attempt, exit_code;
    try {
        messages = read_vlen_strings(file, "tasks/message");
        attempt_messages = read_vlen_strings(file, "attempts/message");
        task = read_ints(file, "attempts/task");
        attempt = read_ints(file, "attempts/attempt");
        exit_code = read_ints(file, "attempts/exit_code");
    } catch (const std::exception& error) {
        H5Fclose(file);
        return error.what();
    }
    H5Fclose(file);
    if (messages.size() != task_count) return "tasks/message has " + std::to_string(messages.size()) + " rows";
    std::ostringstream problem;
    std::size_t row = 0;
    for (std::uint64_t id = 0; id < task_count && problem.str().empty(); ++id) {
        const auto want = with_reasons(test_record(id, 0));
        if (messages[id] != want.message) problem << "task " << id << ": message '" << messages[id] << "'";
        for (const auto& a : decode_attempts(want.attempt_log)) {
            if (row >= task.size() || task[row] != static_cast<std::int64_t>(id) || attempt[row] != a.attempt ||
                exit_code[row] != a.exit_code || attempt_messages[row] != a.message) {
                problem << "task " << id << ": attempt " << a.attempt << " is not row " << row << " of /attempts";
                break;
            }
            ++row;
        }
    }
    if (problem.str().empty() && row != task.size()) problem << "/attempts has " << task.size() << " rows, expected " << row;
    return problem.str();
}

}  // namespace shardrun::io::testing
