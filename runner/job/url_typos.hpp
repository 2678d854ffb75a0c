#pragma once

#include <optional>
#include <string>

/**
 * @file
 * Misspelled URLs (issue 34, point 2): `S3://b/x.h5`, `s3:/b/x.h5`, `s3//b/x.h5` or `s4://b/x.h5`
 * is no URL, so without this check it became a local folder named `s3:` and the run "succeeded"
 * on a disk a container deletes when it ends. Pure text, so the job parser and every command that
 * takes a results path check it before anything is written.
 */
namespace shardrun::storage {

/**
 * Why `path` is refused: its first component starts like a URL scheme (`word:`, any case), or is
 * a supported scheme's name followed by `//`, yet `path` is no supported URL (remote_path.hpp).
 * One line, with "did you mean s3://b/x.h5?" when a supported scheme is near, and the way to say
 * it is a local path after all (`./s3:/b/x.h5`: a first component "." is never a scheme).
 * @return nullopt for a supported URL and for every other path
 */
std::optional<std::string> misspelled_url(const std::string& path);

/**
 * The same for data.input, `FILE:/DATASET`: only FILE (before the last ":/") is a path, so a local
 * `data.h5:/x` is not mistaken for a scheme; FILE named like a scheme (`s3:/b/x.h5`, no dataset
 * yet) is refused too.
 */
std::optional<std::string> misspelled_input_url(const std::string& input);

}  // namespace shardrun::storage
