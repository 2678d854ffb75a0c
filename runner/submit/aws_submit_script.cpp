#include "runner/submit/aws_submit_script.hpp"

#include <fmt/format.h>

#include "runner/submit/cloud_job_settings.hpp"
#include "runner/version.hpp"

namespace shardrun::submit {

std::string aws_submit_script(const SubmitOptions& options, const SubmitFiles& files)
{
    return fmt::format(R"SCRIPT(#!/bin/bash
# Written by `shardrun submit --to aws-batch` (shardrun {version}) for the job {name}.
# Submits the array job ({array} element(s)), then the merge job, which dependsOn it: AWS Batch
# starts the merge once every element has ended, and the merged master lands in {output}.
#   bash submit.sh [JOB_QUEUE]        (default {queue})
# SHARDRUN_AWS is the aws command, with any options: SHARDRUN_AWS="aws --profile research --region us-west-2".
set -euo pipefail
here=$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)
queue=${{1:-{queue}}}
read -r -a aws <<<"${{SHARDRUN_AWS:-aws}}"
"${{aws[@]}}" batch register-job-definition --cli-input-json "file://$here/array-job.json" --query jobDefinitionArn --output text
"${{aws[@]}}" batch register-job-definition --cli-input-json "file://$here/merge-job.json" --query jobDefinitionArn --output text
array_job=$("${{aws[@]}}" batch submit-job --cli-input-json "file://$here/array-submit.json" --job-queue "$queue" --query jobId --output text)
merge_job=$("${{aws[@]}}" batch submit-job --cli-input-json "file://$here/merge-submit.json" --job-queue "$queue" \
    --depends-on "jobId=$array_job" --query jobId --output text)
echo "shardrun: array job $array_job, merge job $merge_job (starts when every element has ended)"
echo "  follow it: ${{aws[*]}} batch describe-jobs --jobs $array_job $merge_job; shardrun status {output}"
)SCRIPT",
                       fmt::arg("version", shardrun_version), fmt::arg("name", files.job_name),
                       fmt::arg("array", options.array), fmt::arg("output", files.output.string()),
                       fmt::arg("queue", aws_job_queue(options)));
}

}  // namespace shardrun::submit
