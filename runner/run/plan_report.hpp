#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/run/prepared_job.hpp"

namespace shardrun::run {

/** One group's share in the plan. */
struct GroupPlan {
    int array_index = 0;
    int group = 0;
    int first_rank = 0;
    std::uint64_t count = 0;        ///< tasks (expected, for the dynamic schedule)
    std::uint64_t first_id = 0;
    std::uint64_t last_id = 0;
    std::uint64_t items = 0;        ///< data items (block schedule; cyclic and dynamic: estimate)
};

/** What `shardrun plan` reports. Costs O(groups), independent of the task count. */
struct PlanReport {
    std::string job_name;
    std::string task_kind;
    std::string schedule;
    std::string output;             ///< output.path
    std::uint64_t tasks = 0;
    std::uint64_t sweep_points = 0;
    std::uint64_t chunks = 0;
    std::uint64_t items = 0;
    int ranks = 1;
    int gpus_per_task = 1;
    int array_count = 1;
    std::vector<GroupPlan> groups;
    double imbalance = 1.0;         ///< max/mean tasks per group (static), 1 + tail estimate (dynamic)
    std::uint64_t dynamic_claims = 0;
};

/**
 * @param element  the array element to show, or -1 for every element
 * @throws UsageError when gpus_per_task does not divide ranks
 */
PlanReport make_plan(const PreparedJob& job, int ranks, int array_count, int element);

std::string plan_text(const PlanReport& report);
std::string plan_json(const PlanReport& report);

}  // namespace shardrun::run
