#pragma once

#include <memory>
#include <string>

#include "runner/job/job_parser.hpp"
#include "runner/run/setup/prepared_job.hpp"
#include "runner/tasks/registry.hpp"

namespace shardrun::run::testing {

/** A job file's text prepared as `shardrun run` prepares it (a noop kind needs no input file). */
inline PreparedJob prepared_job(const std::string& text, const std::string& file_name = "job.yaml")
{
    PreparedJob job;
    job.spec = job::parse_job(file_name, text, {}, {"noop"});
    job.kind = tasks::make_task_kind(job.spec);
    job.items = job.spec.data.items;
    job.fields = job.kind->fields(job.spec.params);
    job.space = std::make_unique<job::TaskSpace>(job::TaskSpace::of(job.spec, job.items));
    return job;
}

}  // namespace shardrun::run::testing
