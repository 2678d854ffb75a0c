#include "runner/job/resolved_json.hpp"

#include "runner/job/sweep.hpp"

namespace shardrun::job {

nlohmann::ordered_json scalar_json(const YAML::Node& node)
{
    return std::visit([](const auto& value) { return nlohmann::ordered_json(value); }, scalar_value(node));
}

nlohmann::ordered_json to_json(const YAML::Node& node)
{
    if (node.IsMap()) {
        auto object = nlohmann::ordered_json::object();
        for (const auto& entry : node) object[entry.first.as<std::string>()] = to_json(entry.second);
        return object;
    }
    if (node.IsSequence()) {
        auto array = nlohmann::ordered_json::array();
        for (const auto& item : node) array.push_back(to_json(item));
        return array;
    }
    if (!node.IsScalar()) return nullptr;
    return scalar_json(node);
}

std::string resolved_json(nlohmann::ordered_json identity, const std::optional<YAML::Node>& points_file)
{
    if (points_file) identity["sweep"]["points_file"] = to_json(*points_file);
    // Keeping a task's result files changes no result: --resume may switch it.
    if (identity.contains("exec") && identity["exec"].is_object()) {
        identity["exec"].erase("keep_files");
        identity["exec"].erase("keep_checkpoints");  // what is kept after success, not what a task computes
        identity["exec"].erase("checkpoint_sync");
    }
    // yaml-cpp passes bytes that are not UTF-8 through and dump() would throw type_error 316
    // (a bare "invalid UTF-8 byte", exit 1); U+FFFD keeps the identity stable and the job valid.
    return identity.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace shardrun::job
