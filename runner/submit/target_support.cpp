#include "runner/submit/target_support.hpp"

#include <fmt/format.h>

#include "runner/errors.hpp"

namespace shardrun::submit {

std::string write_json(const SubmitFiles& files, const std::string& name, const nlohmann::json& body)
{
    const auto path = (files.dir / name).string();
    write_text_file(path, body.dump(2) + "\n");
    return path;
}

std::string element_note(const SubmitOptions& options, const SubmitFiles& files)
{
    if (options.array == 1) return fmt::format("  results: {}\n", files.output.string());
    return fmt::format("  each element writes {}.shards/a<index>/; results: {} once `shardrun merge {}` has run\n",
                       files.output.string(), files.output.string(), shell_quote(files.output.string()));
}

}  // namespace shardrun::submit
