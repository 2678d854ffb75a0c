#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace shardrun::job {

/**
 * `price:` what an hour costs (issue 38, point 3): per GPU-hour and per node-hour, given or
 * taken from a machine type's list price (machine_prices()). A task's cost is its time times
 * (gpu_hour x its GPUs + node_hour x its share of the node).
 */
struct PriceSpec {
    double gpu_hour = 0;   ///< dollars per GPU-hour
    double node_hour = 0;  ///< dollars per node-hour
    std::string machine;   ///< the machine type node_hour came from; empty when given
    bool given() const noexcept { return gpu_hour > 0 || node_hour > 0; }
};

/** `budget:` the most the job (all its runs) may spend: dollars or kWh. */
struct BudgetSpec {
    enum class Unit { none, usd, kwh };
    Unit unit = Unit::none;
    double limit = 0;
    bool given() const noexcept { return unit != Unit::none; }
    /** "$12.50" or "3 kWh". */
    std::string text(double amount) const;
};

/** A machine type's on-demand list price per node-hour (README, "Energy, money and a budget"); nullopt when unknown. */
std::optional<double> machine_price(std::string_view machine);
/** The machine types machine_price() knows, ", "-separated (for the error). */
std::string known_machines();

}  // namespace shardrun::job
