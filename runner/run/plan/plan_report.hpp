#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/run/setup/prepared_job.hpp"

namespace shardrun::run {

/** Where one member of a group runs. */
struct MemberPlan {
    int rank = 0;
    std::string host;
    std::string device;  ///< "cuda:<local rank mod gpus per node>" or "cpu"
};

/** One group's share in the plan. */
struct GroupPlan {
    int array_index = 0;
    int group = 0;
    int first_rank = 0;
    std::uint64_t count = 0;        ///< tasks (expected, for the dynamic schedule)
    std::uint64_t first_id = 0;
    std::uint64_t last_id = 0;
    std::uint64_t items = 0;        ///< data items (block schedule; cyclic and dynamic: estimate)
    std::vector<MemberPlan> members;
    bool spans_nodes = false;
};

/** The nodes `plan` assumes: consecutive world ranks fill a node, as mpirun's default mapping does. */
struct PlanNodes {
    int ranks_per_node = 0;          ///< 0: every rank on one node
    int gpus_per_node = 0;           ///< 0: the ranks compute on the CPU
    std::vector<std::string> hosts;  ///< node names in order; node<i> where not given
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
    int nodes = 1;
    int ranks_per_node = 1;
    bool groups_span_nodes = false;  ///< gpus_per_task does not fit the ranks of one node
    std::vector<GroupPlan> groups;
    double imbalance = 1.0;         ///< max/mean tasks per group (static), 1 + tail estimate (dynamic)
    std::uint64_t dynamic_claims = 0;
    int gpus_per_rank = 1;          ///< GPUs each process sees, packed by node
};

/**
 * @param element  the array element to show, or -1 for every element
 * @throws UsageError when gpus_per_task does not divide ranks, or a node's ranks ask more GPUs than it has
 */
PlanReport make_plan(const PreparedJob& job, int ranks, int array_count, int element, const PlanNodes& nodes = {});

std::string plan_text(const PlanReport& report);
std::string plan_json(const PlanReport& report);

}  // namespace shardrun::run
