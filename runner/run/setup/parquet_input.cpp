#include "runner/run/setup/parquet_input.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "io/input/dataset_reader.hpp"
#include "runner/process/process.hpp"
#include "runner/process/unique_fd.hpp"

extern char** environ;

namespace shardrun::run {
namespace {

// Prints {"rows": N, "ids": [...]} or {"error": "..."}: one JSON line that this side parses.
constexpr const char* footer_script = R"py(import json, sys
try:
    import pyarrow.parquet as pq
except ImportError:
    print(json.dumps({"error": "reading Parquet needs the Python package pyarrow in " + sys.executable +
                      " (pip install pyarrow, or SHARDRUN_PYTHON names a Python that has it)"})); sys.exit(0)
path, column = sys.argv[1], sys.argv[2]
try:
    f = pq.ParquetFile(path)
    out = {"rows": f.metadata.num_rows}
    if column:
        if column not in f.schema_arrow.names:
            out = {"error": "no column '%s'; the file has %s" % (column, ", ".join(f.schema_arrow.names))}
        else:
            ids = f.read(columns=[column]).column(0).to_pylist()
            bad = [v for v in ids if not isinstance(v, (int, str)) or isinstance(v, bool)]
            out["ids"] = ids if not bad else None
            if bad: out = {"error": "column '%s' holds %r; an id is an integer or a string" % (column, bad[0])}
except Exception as e:
    out = {"error": str(e).splitlines()[0] if str(e) else type(e).__name__}
print(json.dumps(out))
)py";

std::string read_back(int fd)
{
    std::string text;
    char buffer[65536];
    for (off_t offset = 0;;) {
        const auto n = pread(fd, buffer, sizeof buffer, offset);
        if (n <= 0) return text;
        text.append(buffer, static_cast<std::size_t>(n));
        offset += n;
    }
}

}  // namespace

ParquetRows read_parquet_rows(const std::string& path, const std::string& id_column)
{
    const process::UniqueFd out(memfd_create("shardrun-parquet", MFD_CLOEXEC));
    process::ProcessSpec spec;
    // SHARDRUN_PYTHON as for `export --parquet`: under mpirun, PATH may start with MPI's own bin folder.
    const char* chosen = std::getenv("SHARDRUN_PYTHON");
    const std::string python = chosen != nullptr && *chosen != '\0' ? chosen : "python3";
    const std::string which = python == "python3" ? "python3 on PATH" : python + " ($SHARDRUN_PYTHON)";
    spec.argv = {python, "-c", footer_script, path, id_column};
    for (char** entry = environ; *entry != nullptr; ++entry) spec.env.emplace_back(*entry);
    spec.stdout_fd = out.get();
    spec.stderr_path = "/dev/null";
    const auto result = process::run_process(spec, [] { return false; });
    if (!result.started) {
        SHARDRUN_THROW(io::InputError, path + ": reading Parquet needs the Python package pyarrow, but " + which + " did not start");
    }
    const auto answer = nlohmann::json::parse(read_back(out.get()), nullptr, false);
    if (!answer.is_object()) SHARDRUN_THROW(io::InputError, path + ": " + which + " could not read it with pyarrow");
    if (answer.contains("error")) SHARDRUN_THROW(io::InputError, path + ": " + answer["error"].get<std::string>());
    ParquetRows rows;
    rows.rows = answer.value("rows", std::uint64_t{0});
    if (answer.contains("ids") && answer["ids"].is_array()) {
        io::ItemIds ids;
        ids.integer = std::all_of(answer["ids"].begin(), answer["ids"].end(), [](const auto& v) { return v.is_number_integer(); });
        for (const auto& v : answer["ids"]) {
            if (ids.integer) {
                ids.ints.push_back(v.template get<std::int64_t>());
            } else {
                ids.text.push_back(v.is_string() ? v.template get<std::string>() : v.dump());
            }
        }
        rows.ids = std::move(ids);
    }
    return rows;
}

}  // namespace shardrun::run
