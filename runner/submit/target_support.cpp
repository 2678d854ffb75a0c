#include "runner/submit/target_support.hpp"

#include <fmt/format.h>

#include "io/layout/output_layout.hpp"
#include "runner/errors.hpp"
#include "runner/submit/cloud_container.hpp"

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
    const auto element = io::layout::shards_dir(files.output.string()) / io::layout::element_name("<index>");
    return fmt::format("  each element writes {}/; the merge joins them into {} (by hand: shardrun merge {})\n",
                       element.string(), files.output.string(), shell_quote(files.output.string()));
}

std::string cloud_storage_note(const SubmitOptions& options, const SubmitFiles& files)
{
    if (!files.remote_dir.empty()) {
        return fmt::format("  image {} (it runs {}); the containers share nothing but {}\n", options.image,
                           image_entrypoint, files.output.string());
    }
    return fmt::format("  image {}; the containers must mount {} (--shared-fs) at the same path: it holds {} and the "
                       "output\n", options.image, options.shared_fs, files.dir.string());
}

}  // namespace shardrun::submit
