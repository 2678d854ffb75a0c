// Array elements that belong together: one job, one array count (issue 23, point 3).
#include "io/layout/element_match.hpp"

#include "base/documented_error.hpp"
#include "io/errors.hpp"
#include "io/layout/output_layout.hpp"

namespace shardrun::io {
namespace {

/** "job 'heat' (job hash 0123456789ab)": the name users chose and the identity that decides. */
std::string job_words(const std::string& name, const std::string& hash)
{
    return "job '" + name + "' (job hash " + hash.substr(0, 12) + ")";
}

/** Why `other` does not belong with `reference` (element `reference_index`); empty when it does. */
std::string mismatch(int reference_index, const ElementManifest& reference, int index, const ElementManifest& other)
{
    const auto& r = reference.metadata;
    const auto& o = other.metadata;
    if (other.job_hash != reference.job_hash) {
        return "array element " + std::to_string(index) + " belongs to " + job_words(o.job_name, other.job_hash) +
               ", element " + std::to_string(reference_index) + " to " + job_words(r.job_name, reference.job_hash);
    }
    if (o.array_count != r.array_count) {
        return "array element " + std::to_string(index) + " was run with --array-count " + std::to_string(o.array_count) +
               ", element " + std::to_string(reference_index) + " with --array-count " + std::to_string(r.array_count);
    }
    if (index >= r.array_count) {
        return "array element " + std::to_string(index) + " is beyond the array count " + std::to_string(r.array_count);
    }
    return "";
}

}  // namespace

std::vector<std::pair<int, ElementManifest>> read_element_manifests(const std::string& path)
{
    std::vector<std::pair<int, ElementManifest>> present;
    for (const int index : layout::element_indexes(path)) {
        if (auto manifest = read_manifest(path, index)) present.emplace_back(index, std::move(*manifest));
    }
    return present;
}

void check_element_fits(const std::string& path, const JobMetadata& metadata)
{
    const auto hash = job_hash(metadata);
    for (const int index : layout::element_indexes(path)) {
        if (index == metadata.array_index) continue;
        const auto other = read_manifest(path, index);
        if (!other) continue;  // a folder whose element has not written its manifest yet
        const auto what = path + " holds array element " + std::to_string(index) + " of " +
                          job_words(other->metadata.job_name, other->job_hash);
        const auto restart = layout::shards_dir(path).string() + " to start over";
        if (other->job_hash != hash) {
            SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#resume-mismatch",
                                      what + "; this element " + std::to_string(metadata.array_index) + " is of " +
                                      job_words(metadata.job_name, hash) + ": two jobs cannot share one output; choose "
                                      "another output.path (or delete " + restart + ")");
        }
        if (other->metadata.array_count != metadata.array_count) {
            SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#resume-mismatch",
                                      what + " run with --array-count " + std::to_string(other->metadata.array_count) +
                                      "; this element " + std::to_string(metadata.array_index) + " has --array-count " +
                                      std::to_string(metadata.array_count) + ": every element of an array needs the "
                                      "same count (or delete " + restart + " with the new count)");
        }
    }
}

std::vector<ElementMismatch> mismatched_elements(const std::vector<std::pair<int, ElementManifest>>& present)
{
    std::vector<ElementMismatch> problems;
    if (present.empty()) return problems;
    const auto& [reference_index, reference] = present.front();
    for (const auto& [index, manifest] : present) {
        if (auto why = mismatch(reference_index, reference, index, manifest); !why.empty()) {
            problems.push_back({index, std::move(why)});
        }
    }
    return problems;
}

std::string describe(const std::vector<ElementMismatch>& mismatches)
{
    std::string text;
    for (const auto& item : mismatches) text += (text.empty() ? "" : "; ") + item.why;
    return text;
}

}  // namespace shardrun::io
