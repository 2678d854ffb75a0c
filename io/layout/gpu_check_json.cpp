#include "io/layout/gpu_check_json.hpp"

#include <cmath>

namespace shardrun::io {
namespace {

// JSON has no NaN: a figure not measured is null.
nlohmann::json number(double value) { return std::isnan(value) ? nlohmann::json(nullptr) : nlohmann::json(value); }

double number_of(const nlohmann::json& row, const char* key)
{
    const auto it = row.find(key);
    return it == row.end() || it->is_null() ? std::numeric_limits<double>::quiet_NaN() : it->get<double>();
}

}  // namespace

nlohmann::json gpu_checks_json(const std::vector<GpuCheckRow>& rows)
{
    auto out = nlohmann::json::array();
    for (const auto& r : rows) {
        out.push_back({{"array_index", r.array_index}, {"rank", r.rank}, {"host", r.host}, {"device", r.device},
                       {"visible_id", r.visible_id}, {"uuid", r.uuid}, {"model", r.model}, {"precision", r.precision},
                       {"gemm_tflops", number(r.gemm_tflops)}, {"copy_gbps", number(r.copy_gbps)},
                       {"floor_tflops", number(r.floor_tflops)}, {"check_seconds", r.check_seconds},
                       {"sm_clock_mhz", r.sm_clock_mhz}, {"sm_clock_max_mhz", r.sm_clock_max_mhz},
                       {"mem_clock_mhz", r.mem_clock_mhz}, {"throttle", r.throttle}, {"errors", r.errors},
                       {"admitted", r.admitted}, {"reason", r.reason}});
    }
    return out;
}

std::vector<GpuCheckRow> gpu_checks_from_json(const nlohmann::json& rows)
{
    std::vector<GpuCheckRow> out;
    for (const auto& j : rows) {
        GpuCheckRow r;
        r.array_index = j.value("array_index", 0);
        r.rank = j.value("rank", 0);
        r.host = j.value("host", std::string());
        r.device = j.value("device", std::string());
        r.visible_id = j.value("visible_id", std::string());
        r.uuid = j.value("uuid", std::string());
        r.model = j.value("model", std::string());
        r.precision = j.value("precision", std::string());
        r.gemm_tflops = number_of(j, "gemm_tflops");
        r.copy_gbps = number_of(j, "copy_gbps");
        r.floor_tflops = number_of(j, "floor_tflops");
        r.check_seconds = j.value("check_seconds", 0.0);
        r.sm_clock_mhz = j.value("sm_clock_mhz", -1);
        r.sm_clock_max_mhz = j.value("sm_clock_max_mhz", -1);
        r.mem_clock_mhz = j.value("mem_clock_mhz", -1);
        r.throttle = j.value("throttle", std::string());
        r.errors = j.value("errors", std::string());
        r.admitted = j.value("admitted", true);
        r.reason = j.value("reason", std::string());
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace shardrun::io
