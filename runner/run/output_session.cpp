#include "runner/run/output_session.hpp"

#include <mpi.h>

#include <cctype>

#include "collectives/mpi/mpi_error.hpp"
#include "runner/run/agreement.hpp"
#include "runner/run/param_columns.hpp"
#include "runner/version.hpp"

namespace shardrun::run {
namespace {

// "CUDA runtime" -> "cuda_runtime": attribute names h5py users can type.
std::string attribute_name(const std::string& label)
{
    std::string name;
    for (const char c : label) name += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
    return name;
}

io::JobMetadata make_metadata(const PreparedJob& job, const env::RunEnvironment& environment,
                              placement::IdRange element)
{
    io::JobMetadata metadata;
    metadata.job_name = job.spec.name;
    metadata.job_file = job.spec.file;
    metadata.job_text = job.spec.text;
    metadata.params_json = job.spec.resolved_json;
    metadata.shardrun_version = shardrun_version;
    metadata.git_commit = shardrun_git_commit;
    metadata.array_index = static_cast<int>(environment.array.index);
    metadata.array_count = static_cast<int>(environment.array.count);
    metadata.world_size = environment.topology.world_size;
    for (const auto& row : env::gather_rank_rows({environment.topology.world_rank, environment.topology.local_rank,
                                                  environment.topology.local_size, environment.topology.host, ""})) {
        if (metadata.hostnames.empty() || metadata.hostnames.back() != row.host) metadata.hostnames.push_back(row.host);
    }
    for (const auto& [library, version] : environment.build.libraries) metadata.library_versions[attribute_name(library)] = version;
    metadata.task_count = job.task_count();
    metadata.first_task = element.first;
    metadata.end_task = element.last;
    metadata.param_names = job.spec.sweep.names();
    return metadata;
}

}  // namespace

OutputSession::OutputSession(const PreparedJob& job, const env::RunEnvironment& environment,
                             placement::IdRange element, bool resume, bool force)
    : job_(job), rank_(environment.topology.world_rank), world_size_(environment.topology.world_size)
{
    options_.path = job.spec.output.path;
    options_.layout = job.spec.output.layout == "single" ? io::Layout::single : io::Layout::shards;
    options_.resume = resume;
    options_.force = force;
    metadata_ = make_metadata(job, environment, element);
    run_agreed([&] {
        if (rank_ == 0) lock_ = io::prepare_output(options_, metadata_);
    });
    if (resume) load_committed(element);
    run_agreed([&] { sink_ = io::open_rank_sink(options_, metadata_, job.fields, rank_, world_size_); });
}

OutputSession::~OutputSession() = default;

void OutputSession::load_committed(placement::IdRange element)
{
    std::vector<std::uint64_t> ids;
    run_agreed([&] {
        if (rank_ == 0) ids = io::committed_tasks(options_, metadata_);
    });
    std::uint64_t count = ids.size();
    SHARDRUN_MPI_CHECK(MPI_Bcast(&count, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD));
    ids.resize(count);
    SHARDRUN_MPI_CHECK(MPI_Bcast(ids.data(), static_cast<int>(count), MPI_UINT64_T, 0, MPI_COMM_WORLD));
    committed_.assign(element.last, false);
    for (const auto id : ids) committed_[id] = true;
    committed_count_ = count;
}

void OutputSession::finish(bool interrupted)
{
    run_agreed([&] { sink_.reset(); });
    SHARDRUN_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (interrupted) return;
    run_agreed([&] {
        if (rank_ != 0) return;
        const auto columns = param_columns(job_);
        io::finalize_output(options_, metadata_, job_.fields, columns.params, columns.ranges, world_size_);
    });
}

}  // namespace shardrun::run
