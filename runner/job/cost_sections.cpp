// The money keys: price (per GPU-hour, per node-hour, or a machine type's) and budget (dollars or
// kWh), issue 38 point 3.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>

#include "runner/job/cost_spec.hpp"
#include "runner/job/job_fields.hpp"
#include "runner/job/job_sections.hpp"
#include "runner/job/section_reads.hpp"

namespace shardrun::job {
namespace {

// On-demand list prices per node-hour, USD (AWS us-east-1, Google Cloud us-central1; 2025). A
// guide, not a bill: give price: {node_hour: ...} for your own rate.
const std::map<std::string_view, double>& machine_prices()
{
    static const std::map<std::string_view, double> prices{
        {"p5.48xlarge", 98.32},     // 8 x H100 80GB
        {"p4d.24xlarge", 32.77},    // 8 x A100 40GB
        {"g5.xlarge", 1.006},       // 1 x A10G
        {"g6.xlarge", 0.805},       // 1 x L4
        {"a3-highgpu-8g", 88.25},   // 8 x H100 80GB
        {"a2-highgpu-1g", 3.67},    // 1 x A100 40GB
        {"g2-standard-4", 0.71},    // 1 x L4
    };
    return prices;
}

/** A non-negative number, or fail naming `path`. */
double read_amount(const YAML::Node& node, const YamlContext& context, const std::string& path, const char* allowed)
{
    double value = 0;
    if (!node.IsScalar() || !YAML::convert<double>::decode(node, value) || !(value >= 0)) {
        context.fail(node, path, allowed);
    }
    return value;
}

PriceSpec read_price(const YAML::Node& node, const YamlContext& context)
{
    constexpr const char* form = "must be {gpu_hour: 2.5, node_hour: 1.2} (dollars, either or both) or {machine: p5.48xlarge}";
    if (!node.IsMap()) context.fail(node, "price", form);
    context.check_keys(node, "price", job_field_names("price"));
    PriceSpec price;
    constexpr const char* amount = "must be a number of dollars, 0 or more";
    if (node["gpu_hour"]) price.gpu_hour = read_amount(node["gpu_hour"], context, "price.gpu_hour", amount);
    if (node["node_hour"]) price.node_hour = read_amount(node["node_hour"], context, "price.node_hour", amount);
    if (node["machine"]) {
        price.machine = read_string(node["machine"], context, "price.machine");
        const auto listed = machine_price(price.machine);
        if (!listed) {
            context.fail(node["machine"], "price.machine",
                         fmt::format("'{}' is not in shardrun's table; known: {}; or give node_hour", price.machine,
                                     known_machines()));
        }
        if (node["node_hour"]) context.fail(node["machine"], "price.machine", "give machine or node_hour, not both");
        price.node_hour = *listed;
    }
    if (!price.given()) context.fail(node, "price", form);
    return price;
}

BudgetSpec read_budget(const YAML::Node& node, const YamlContext& context)
{
    constexpr const char* form = "must be dollars (25, \"$25\", \"25 usd\") or energy (\"3 kWh\"), above 0";
    if (!node.IsScalar()) context.fail(node, "budget", form);
    std::string text;
    for (const char c : node.Scalar()) {
        if (!std::isspace(static_cast<unsigned char>(c)) && c != '$') text += static_cast<char>(std::tolower(c));
    }
    BudgetSpec budget;
    budget.unit = BudgetSpec::Unit::usd;
    for (const auto& [suffix, unit] : {std::pair{"kwh", BudgetSpec::Unit::kwh}, std::pair{"usd", BudgetSpec::Unit::usd}}) {
        const std::string_view ending(suffix);
        if (text.size() > ending.size() && text.ends_with(ending)) {
            text.resize(text.size() - ending.size());
            budget.unit = unit;
        }
    }
    std::size_t used = 0;
    try {
        budget.limit = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || !(budget.limit > 0)) context.fail(node, "budget", form);
    return budget;
}

}  // namespace

std::string BudgetSpec::text(double amount) const
{
    if (unit == Unit::kwh) return fmt::format("{:.3g} kWh", amount);
    // Cents for a budget of dollars; below a dollar, three significant digits ($0.075, $0.00251),
    // so a small budget's message does not read "$0.00 left".
    return std::abs(amount) >= 1 || amount == 0 ? fmt::format("${:.2f}", amount) : fmt::format("${:.3g}", amount);
}

std::optional<double> machine_price(std::string_view machine)
{
    const auto found = machine_prices().find(machine);
    if (found == machine_prices().end()) return std::nullopt;
    return found->second;
}

std::string known_machines()
{
    std::string out;
    for (const auto& entry : machine_prices()) out += (out.empty() ? "" : ", ") + std::string(entry.first);
    return out;
}

void read_cost_fields(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    if (const auto node = root["price"]; node && !node.IsNull()) job.spec.price = read_price(node, context);
    if (const auto node = root["budget"]; node && !node.IsNull()) {
        job.spec.budget = read_budget(node, context);
        if (job.spec.budget.unit == BudgetSpec::Unit::usd && !job.spec.price.given()) {
            context.fail(node, "budget", "is in dollars, but the job has no price: give price: {gpu_hour: ...} or "
                                         "{node_hour: ...}, or a budget in kWh");
        }
    }
}

}  // namespace shardrun::job
