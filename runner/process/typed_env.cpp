#include "runner/process/typed_env.hpp"

#include <nlohmann/json.hpp>

namespace shardrun::process {

std::string params_json(const job::ParamMap& params)
{
    nlohmann::json object = nlohmann::json::object();
    for (const auto& [name, value] : params.entries()) {
        object[name] = std::visit([](const auto& v) { return nlohmann::json(v); }, value);
    }
    // A parameter text that is not UTF-8 must not abort the task: replaced, as in the worker's request line.
    return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string result_fields_json(const std::vector<io::FieldSpec>& fields)
{
    nlohmann::json object = nlohmann::json::object();
    for (const auto& field : fields) object[field.name] = io::dtype_name(field.dtype);
    return object.dump();
}

}  // namespace shardrun::process
