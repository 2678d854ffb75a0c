// The physical limit of exec dispatch on this machine (issue 25, point 5): how many processes per
// second posix_spawn + waitid sustain with P of them in flight, with no runner around them.
//
//     spawn_limit TASKS [IN_FLIGHT=2] [PROGRAM=/bin/true]
//
// Prints "spawn_limit tasks=N in_flight=P seconds=S per_second=R". Each process gets one
// argument (its index), as shardrun's exec tasks and `xargs -n 1` give theirs, and inherits this
// program's stdout and stderr (no pipes, no files): the cheapest spawn there is, so a runner
// can be measured against it (benchmarks/run.d/dispatch.py).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern char** environ;

namespace {

pid_t spawn_one(const char* program, long index) {
    std::string arg = std::to_string(index);
    char* argv[] = {const_cast<char*>(program), arg.data(), nullptr};
    pid_t pid = 0;
    int rc = posix_spawn(&pid, program, nullptr, nullptr, argv, environ);
    if (rc != 0) {
        std::fprintf(stderr, "spawn_limit: posix_spawn %s: %s\n", program, std::strerror(rc));
        std::exit(1);
    }
    return pid;
}

// Reaps one child; exits on a failed one, since a limit measured on failing spawns means nothing.
void reap_one() {
    siginfo_t info{};
    while (waitid(P_ALL, 0, &info, WEXITED) != 0) {
        if (errno != EINTR) {
            std::perror("spawn_limit: waitid");
            std::exit(1);
        }
    }
    if (info.si_code != CLD_EXITED || info.si_status != 0) {
        std::fprintf(stderr, "spawn_limit: child %d ended with status %d\n", info.si_pid, info.si_status);
        std::exit(1);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 4) {
        std::fprintf(stderr, "usage: spawn_limit TASKS [IN_FLIGHT=2] [PROGRAM=/bin/true]\n");
        return 2;
    }
    const long tasks = std::atol(argv[1]);
    const long in_flight = argc > 2 ? std::atol(argv[2]) : 2;
    const char* program = argc > 3 ? argv[3] : "/bin/true";
    if (tasks < 1 || in_flight < 1) {
        std::fprintf(stderr, "spawn_limit: TASKS and IN_FLIGHT must be at least 1\n");
        return 2;
    }

    const auto start = std::chrono::steady_clock::now();
    long started = 0;
    long running = 0;
    while (started < tasks || running > 0) {
        // Keep IN_FLIGHT children alive; reap one whenever the window is full or nothing is left to start.
        if (started < tasks && running < in_flight) {
            spawn_one(program, started++);
            ++running;
        } else {
            reap_one();
            --running;
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("spawn_limit tasks=%ld in_flight=%ld seconds=%.6f per_second=%.1f\n", tasks, in_flight, seconds,
                tasks / seconds);
    return 0;
}
