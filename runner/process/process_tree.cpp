#include "runner/process/process_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

namespace shardrun::process {
namespace {

struct ProcessStat {
    std::string state;       ///< field 3: R, S, D, Z (zombie), X (dead), ...; empty when gone
    std::string start_time;  ///< field 22: when it started, in clock ticks after boot; "0" when gone
};

ProcessStat process_stat(const std::string& pid)
{
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos) return {"", "0"};
    std::istringstream fields(text.substr(close + 2));
    ProcessStat found;
    fields >> found.state;
    std::string field;
    for (int i = 4; i <= 22 && fields >> field; ++i) {
    }
    found.start_time = field.empty() ? "0" : field;
    return found;
}

// Reads a process's environment; empty when it is gone, a zombie, or not ours to read.
std::string environment_of(const char* pid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%s/environ", pid);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    std::string text;
    char buffer[16384];
    ssize_t got = 0;
    while ((got = read(fd, buffer, sizeof buffer)) > 0 || (got < 0 && errno == EINTR)) {
        if (got > 0) text.append(buffer, static_cast<size_t>(got));
    }
    close(fd);
    return text;
}

bool carries(const std::string& environment, const std::string& token)
{
    const std::string name = std::string(task_token_variable) + "=";
    for (size_t at = 0; at < environment.size();) {
        const auto end = environment.find('\0', at);
        const std::string_view entry(environment.data() + at, (end == std::string::npos ? environment.size() : end) - at);
        if (entry.substr(0, name.size()) == name) {
            const auto value = entry.substr(name.size());
            return value == token || (value.size() > token.size() && value.substr(0, token.size()) == token &&
                                      value[token.size()] == '/');
        }
        if (end == std::string::npos) break;
        at = end + 1;
    }
    return false;
}

int kill_pass(const std::string& token)
{
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return 0;
    const pid_t self = getpid();
    int killed = 0;
    while (const dirent* entry = readdir(proc)) {
        char* end = nullptr;
        const long pid = std::strtol(entry->d_name, &end, 10);
        if (pid <= 1 || *end != '\0' || pid == self) continue;
        if (carries(environment_of(entry->d_name), token) && kill(static_cast<pid_t>(pid), SIGKILL) == 0) ++killed;
    }
    closedir(proc);
    return killed;
}

// The write end of the pipe to the orphan guard; -1 when none was started.
int guard_pipe = -1;
// The guard's pid (in the rank), the rank's pid (in the guard); 0 when none.
std::atomic<pid_t> guard_pid{0};
pid_t guarded_rank = 0;

// In the guard: a stop signal sent to it is meant for its rank (a user's `kill` or `pkill -f`
// that found the guard), so it passes it on, marked as passed on (interrupt.cpp tells it from
// the same signal sent to both). Not once the rank is gone: its pid may be another's by then.
extern "C" void forward_to_rank(int signal)
{
    if (getppid() != guarded_rank) return;
    sigval value{};
    value.sival_int = guard_forward_mark;
    sigqueue(guarded_rank, signal, value);
}

// The guard's command line, which it shares with its rank after fork: rewritten in place (the
// argv strings' memory, /proc/self/stat's arg_start..arg_end), so that ps and pgrep -f tell
// it from the rank. Cut to the room the rank's own arguments took; unchanged if unreadable.
void retitle_guard(pid_t rank)
{
    std::ifstream stat("/proc/self/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos) return;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    unsigned long long arg_start = 0, arg_end = 0;
    for (int i = 3; i <= 49 && fields >> field; ++i) {
        if (i == 48) arg_start = std::strtoull(field.c_str(), nullptr, 10);
        if (i == 49) arg_end = std::strtoull(field.c_str(), nullptr, 10);
    }
    if (arg_start == 0 || arg_end <= arg_start) return;
    std::string title = "shardrun-guard (";
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
        if (const char* value = std::getenv(name)) {
            title += "rank " + std::string(value) + ", ";
            break;
        }
    }
    title += "guards pid " + std::to_string(rank) + ")";
    auto* area = reinterpret_cast<char*>(static_cast<std::uintptr_t>(arg_start));
    const std::size_t room = arg_end - arg_start;
    const std::size_t kept = std::min(title.size(), room - 1);
    std::memcpy(area, title.data(), kept);
    std::memset(area + kept, 0, room - kept);
}

void close_all_but(int keep)
{
    if ((keep == 0 || syscall(SYS_close_range, 0u, static_cast<unsigned>(keep) - 1, 0u) == 0) &&
        syscall(SYS_close_range, static_cast<unsigned>(keep) + 1, ~0u, 0u) == 0) {
        return;
    }
    for (int fd = 0; fd < 65536; ++fd) {
        if (fd != keep) close(fd);
    }
}

}  // namespace

const std::string& rank_token()
{
    static const std::string token = std::to_string(getpid()) + "-" + process_stat(std::to_string(getpid())).start_time;
    return token;
}

bool rank_token_alive(std::string_view token)
{
    const auto dash = token.find('-');
    if (dash == std::string_view::npos) return false;
    const std::string pid(token.substr(0, dash));
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9) return false;
    // A reused pid has another start time; a zombie has ended, whoever has yet to reap it.
    const auto stat = process_stat(pid);
    return stat.state != "Z" && stat.state != "X" && stat.start_time != "0" && stat.start_time == token.substr(dash + 1);
}

std::string task_token(std::uint64_t task_id, int attempt)
{
    return rank_token() + "/" + std::to_string(task_id) + "/" + std::to_string(attempt);
}

int kill_tagged(const std::string& token)
{
    int total = 0;
    // A killed process may have forked a moment before; look again until a pass is clean.
    for (int pass = 0; pass < 50; ++pass) {
        const int killed = kill_pass(token);
        if (killed == 0) break;
        total += killed;
    }
    return total;
}

void start_orphan_guard()
{
    const std::string token = rank_token();
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return;
    const pid_t pid = fork();
    if (pid < 0) {
        close(ends[0]);
        close(ends[1]);
        return;
    }
    if (pid > 0) {
        // The write end stays open for this process's whole life: the guard reads end-of-file
        // exactly when the process is gone, whatever killed it. Before that, one byte says
        // that a task is about to start (arm_orphan_guard).
        close(ends[0]);
        guard_pipe = ends[1];
        guard_pid.store(pid);
        return;
    }
    // The guard: out of the terminal's reach and holding no descriptor of the rank's (an
    // inherited stdout would keep mpirun waiting for end-of-file). It outlives no signal that
    // would leave tasks behind; the stop signals go on to the rank, which stops as asked.
    guarded_rank = getppid();
    setsid();
    for (int sig : {SIGHUP, SIGUSR2, SIGPIPE, SIGQUIT}) signal(sig, SIG_IGN);
    struct sigaction forward {};
    forward.sa_handler = forward_to_rank;
    sigemptyset(&forward.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGUSR1}) sigaction(sig, &forward, nullptr);
    prctl(PR_SET_NAME, "shardrun-guard");
    retitle_guard(guarded_rank);
    close_all_but(ends[0]);
    char byte = 0;
    bool armed = false;
    while (true) {
        const ssize_t got = read(ends[0], &byte, 1);
        if (got == 1) armed = true;
        if (got == 0 || (got < 0 && errno != EINTR)) break;
    }
    // A rank that never started a task left nothing behind: no pass over /proc.
    if (armed) {
        kill_tagged(token);
        // A task the rank was spawning as it died still had the rank's environment, without
        // the token, during the first passes; it has exec'd by now.
        usleep(200000);
        kill_tagged(token);
    }
    _exit(0);
}

pid_t orphan_guard_pid() noexcept { return guard_pid.load(); }

void arm_orphan_guard()
{
    static std::once_flag once;
    std::call_once(once, [] {
        if (guard_pipe < 0) return;
        const char byte = 1;
        while (write(guard_pipe, &byte, 1) < 0 && errno == EINTR) {
        }
    });
}

}  // namespace shardrun::process
