#include "runner/run/plan/auto_device_plan.hpp"

#include <fmt/format.h>

#include <variant>

#include "runner/run/setup/auto_device_route.hpp"

namespace shardrun::run {

RoutePlan route_plan(const PreparedJob& job, int gpus_per_node)
{
    RoutePlan plan;
    plan.automatic = job.spec.device == job::DevicePreference::automatic;
    plan.gpus = gpus_per_node > 0 && job.spec.device != job::DevicePreference::cpu;
    const auto route = route_of(job.spec);
    if (route) {
        plan.rule = route->rule.text;
        plan.origin = route->origin;
    }
    const auto chunks = job.space->chunks();
    auto params = job.space->params_of(0);
    for (std::uint64_t point = 0; point < job.space->sweep_points(); ++point) {
        job.space->update_params(point * chunks, params);
        const auto* requested = params.find("device");
        const auto* text = requested != nullptr ? std::get_if<std::string>(requested) : nullptr;
        bool gpu = plan.gpus;
        if (text != nullptr && *text == "cpu") gpu = false;
        if (gpu && route && auto_sends_to_cpu(true, requested, routes_to_cpu(*route, params))) gpu = false;
        (gpu ? plan.gpu_tasks : plan.cpu_tasks) += chunks;
    }
    return plan;
}

std::string route_plan_text(const RoutePlan& plan)
{
    if (!plan.automatic || (plan.rule.empty() && !plan.gpus)) return "";
    if (!plan.gpus) {
        return fmt::format("routing (device: auto): no GPU planned, so all {} tasks on the CPU (rule {}: \"{}\" applies "
                           "on ranks with a GPU)\n",
                           plan.cpu_tasks, plan.origin, plan.rule);
    }
    const auto rule = plan.rule.empty() ? std::string("no CPU rule for this kind")
                                        : fmt::format("{}: \"{}\"", plan.origin, plan.rule);
    return fmt::format("routing (device: auto): {} tasks on the CPU, {} on the GPU; {}\n", plan.cpu_tasks,
                       plan.gpu_tasks, rule);
}

}  // namespace shardrun::run
