#pragma once

#include <iosfwd>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/**
 * With a bucket output (files.remote_dir set): uploads the submission folder files.dir (job.yaml,
 * the points file, the job files) to files.remote_dir, and --workdir to files.remote_workdir,
 * with rclone. The workdir goes without .git and without what git ignores: in a git work tree,
 * `git ls-files -co --exclude-standard` is rclone's --files-from; elsewhere only .git/ is left
 * out. The local submission folder is left out either way. Files left in the bucket by an
 * earlier submission stay (rclone copy, not sync). `--dry-run`: prints the commands instead.
 * @throws Error naming what failed
 */
void upload_submission(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out);

}  // namespace shardrun::submit
