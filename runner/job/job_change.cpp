// What a changed job file changed, for --resume: only added sweep values keep an output.
#include "runner/job/job_change.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace shardrun::job {
namespace {

using Json = nlohmann::ordered_json;

std::string text(const Json* value) { return value ? value->dump() : "(absent)"; }

std::string differs(const std::string& path, const Json* old, const Json* now)
{
    return path + " differs: old " + text(old) + ", new " + text(now);
}

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

/** The first path where `old` and `now` differ, the deepest that still names one key. */
std::optional<std::string> first_difference(const std::string& path, const Json* old, const Json* now)
{
    if ((!old && !now) || (old && now && *old == *now)) return std::nullopt;
    if (!old || !now || !old->is_object() || !now->is_object()) return differs(path, old, now);
    for (const auto& [key, value] : old->items()) {
        const auto found = now->find(key);
        if (auto diff = first_difference(child(path, key), &value, found == now->end() ? nullptr : &*found)) return diff;
    }
    for (const auto& [key, value] : now->items()) {
        if (!old->contains(key)) return differs(child(path, key), nullptr, &value);
    }
    return differs(path, old, now);  // the same keys in another order (axis order decides ids)
}

/** One sweep key: equal, or a list that keeps every old element. */
std::optional<std::string> sweep_key_change(const std::string& path, const Json& old, const Json& now)
{
    if (old == now) return std::nullopt;
    if (!old.is_array() || !now.is_array() || path == "sweep.zip") return differs(path, &old, &now);
    for (const auto& value : old) {
        if (std::find(now.begin(), now.end(), value) == now.end()) return differs(path, &old, &now);
    }
    return std::nullopt;
}

std::optional<std::string> sweep_change(const Json* old, const Json* now)
{
    if (!old || !now || !old->is_object() || !now->is_object()) {
        return (old && now && *old == *now) || (!old && !now) ? std::nullopt : std::optional(differs("sweep", old, now));
    }
    auto o = old->begin();
    auto n = now->begin();
    for (; o != old->end() && n != now->end(); ++o, ++n) {
        if (o.key() != n.key()) return differs("sweep", old, now);  // an axis added, removed or moved
        if (auto diff = sweep_key_change("sweep." + o.key(), o.value(), n.value())) return diff;
    }
    if (o != old->end()) return differs("sweep." + o.key(), &o.value(), nullptr);
    if (n != now->end()) return differs("sweep." + n.key(), nullptr, &n.value());
    return std::nullopt;
}

const Json* member(const Json& object, const char* key)
{
    const auto found = object.find(key);
    return found == object.end() ? nullptr : &*found;
}

}  // namespace

std::optional<std::string> job_change(const std::string& old_text, const std::string& now_text)
{
    const auto old = Json::parse(old_text);
    const auto now = Json::parse(now_text);
    for (const char* key : {"task", "params", "sweep", "data", "exec"}) {
        const auto* before = member(old, key);
        const auto* after = member(now, key);
        auto diff = std::string(key) == "sweep" ? sweep_change(before, after) : first_difference(key, before, after);
        if (diff) return diff;
    }
    return std::nullopt;
}

}  // namespace shardrun::job
