// The core of the row gatherer: an element's sources, opened and checked once for both front ends.
#include "io/gather/row_gatherer.hpp"

#include "io/errors.hpp"
#include "io/layout/output_layout.hpp"
#include "io/task_rows/tasks_group.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

std::string not_committed(const fs::path& file, const std::string& why)
{
    return file.string() + ": " + why + "; its tasks are treated as not committed";
}

void skip_segment(SkippedSources skipped, const fs::path& file, const std::string& why)
{
    skipped.problems.push_back(not_committed(file, why));
    skipped.invalid_segments.push_back(file);
}

/** Same names and row sizes in the same order: a segment's rows can stand in the job's columns. */
bool same_fields(const std::vector<FieldSpec>& a, const std::vector<FieldSpec>& b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t f = 0; f < a.size(); ++f) {
        if (a[f].name != b[f].name || a[f].bytes() != b[f].bytes()) return false;
    }
    return true;
}

}  // namespace

void for_each_element_source(const std::string& path, int array_index, const std::function<void(const fs::path&)>& segment,
                             const std::function<void(const fs::path&)>& single)
{
    for (const int rank : layout::rank_indexes(path, array_index)) {
        for (const auto& file : layout::segments(layout::rank_dir(path, array_index, rank))) segment(file);
    }
    const auto file = layout::single_path(path, array_index);
    if (fs::exists(file)) single(file);
}

std::optional<shards::SegmentSpan> open_segment_span(const fs::path& file, SkippedSources skipped)
{
    std::string why;
    auto span = shards::read_segment_span(file, &why);
    if (!span) skip_segment(skipped, file, why);
    return span;
}

std::optional<shards::Segment> open_segment(const fs::path& file, SkippedSources skipped, shards::SegmentReading reading,
                                            const std::vector<FieldSpec>* job_fields)
{
    std::string why;
    auto segment = shards::read_segment(file, &why, reading);
    if (segment && job_fields != nullptr && !job_fields->empty() && !same_fields(segment->fields, *job_fields)) {
        segment.reset();
        why = "its result fields differ from the job's";
    }
    if (!segment) skip_segment(skipped, file, why);
    return segment;
}

void require_consolidated_master(const std::string& path)
{
    hdf5::silence_hdf5_errors();
    try {
        auto h5 = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    } catch (const Hdf5Error& error) {
        const auto why = fs::exists(path) ? "cannot be read (" + error.cause() + ")" : std::string("is missing");
        SHARDRUN_THROW(OutputError, path + " " + why + ", and it is the only copy of the results its tasks "
                                    "committed (their shards were removed once it was complete); restore it, or rerun the job with --force");
    }
}

void open_single(const fs::path& file, SkippedSources skipped, const std::function<void(hdf5::File&, std::uint64_t)>& use)
{
    hdf5::silence_hdf5_errors();
    try {
        auto h5 = SHARDRUN_H5_OPEN(File, H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        const std::uint64_t rows = tasks_group_rows(h5.get());
        use(h5, rows);
    } catch (const Hdf5Error& error) {
        skipped.problems.push_back(not_committed(file, error.what()));
    }
}

}  // namespace shardrun::io
