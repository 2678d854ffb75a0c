#include "runner/storage/claim_end.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "io/layout/output_layout.hpp"
#include "io/layout/run_end_reason.hpp"
#include "runner/storage/writer_claim.hpp"

namespace shardrun::storage {

void claim_end_to_lock(const std::string& claim_text, const std::string& output_path, int array_index)
{
    const auto claim = nlohmann::json::parse(claim_text, nullptr, false);
    if (!claim.is_object() || claim.value("released", false)) return;
    const auto ended = claim.value("ended", std::string());
    if (ended.empty()) return;
    const WriterRun run{claim.value("run", std::string()), claim.value("host", std::string()),
                        claim.value("started", std::string())};
    // The holder's line, as a local run's lock file names its process ("pid 4711 on node-a since ...").
    const auto holder = "the run of " + run.describe() + "\n";
    const auto lock = io::layout::lock_path(output_path, array_index);
    const int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const bool written = ::write(fd, holder.data(), holder.size()) == static_cast<ssize_t>(holder.size());
    ::close(fd);
    if (written) io::record_run_end_reason(output_path, array_index, ended);
}

}  // namespace shardrun::storage
