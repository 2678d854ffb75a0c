#pragma once

#include <string>
#include <utility>
#include <vector>

#include "io/layout/element_manifest.hpp"
#include "io/output_spec.hpp"

/**
 * @file
 * Whether the array elements in <path>.shards/ belong together: one job (the same job hash)
 * run with one --array-count, every index below that count. An element of another job or of
 * another count would mix its rows into the merged file, or leave tasks no element runs.
 */
namespace shardrun::io {

/** Every element manifest found under <path>.shards/, by index, sorted. */
std::vector<std::pair<int, ElementManifest>> read_element_manifests(const std::string& path);

/**
 * Before an element writes anything: the other elements already in the output must be of
 * this element's job and array count (its own folder is --resume's and --force's business).
 * @throws OutputError naming both jobs (name and job hash) or both array counts
 */
void check_element_fits(const std::string& path, const JobMetadata& metadata);

/** An element that does not belong with the others, and why in one sentence. */
struct ElementMismatch {
    int index = 0;
    std::string why;
};

/**
 * The elements that do not belong with the lowest-indexed one (another job, another array
 * count, an index beyond the count). Empty when they all belong together.
 */
std::vector<ElementMismatch> mismatched_elements(const std::vector<std::pair<int, ElementManifest>>& present);

/** The mismatches' sentences joined by "; ": the mismatches on one line. */
std::string describe(const std::vector<ElementMismatch>& mismatches);

}  // namespace shardrun::io
