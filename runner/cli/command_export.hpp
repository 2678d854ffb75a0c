#pragma once

#include <string>

#include "runner/cli/command.hpp"

namespace shardrun::cli {

/**
 * `shardrun export OUT --grid FILE.nc`: the results of a cartesian sweep as N-D variables
 * over the sweep axes (netCDF-4, one `xr.open_dataset`). Other layouts of the same data
 * (e.g. a pivoted table) would be further options of this command. `--parquet FILE` writes
 * the table of the Python helper's shardrun.read() through `python3 -m shardrun.export`:
 * pyarrow writes Parquet, which shardrun does not link.
 */
class ExportCommand : public Command {
public:
    std::string_view name() const noexcept override { return "export"; }
    std::string_view synopsis() const noexcept override
    {
        return "write a cartesian sweep's results as a netCDF grid over its axes (--grid FILE.nc), or params, "
               "tasks and results joined as Parquet (--parquet FILE)";
    }
    std::string_view arguments() const noexcept override { return "OUTPUT.h5 --grid FILE.nc | --parquet FILE.parquet"; }
    CommandDoc doc() const override;
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string path_;
    std::string grid_;
    std::string parquet_;
};

}  // namespace shardrun::cli
