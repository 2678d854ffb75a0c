#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

namespace shardrun::gpu {

/** The MPS control program: found on PATH, as the NVIDIA driver installs it. */
inline constexpr const char* mps_control_program = "nvidia-cuda-mps-control";

/** The absolute path of nvidia-cuda-mps-control on PATH; empty when there is none. */
std::string find_mps_control();

/**
 * One MPS control daemon, started as the user (no administrator) with its own pipe and log
 * folders under $TMPDIR (else /tmp): <root>/pipe and <root>/log, where <root> is a fresh
 * shardrun-mps-XXXXXX folder. Every client that is to share it gets CUDA_MPS_PIPE_DIRECTORY
 * and CUDA_MPS_LOG_DIRECTORY (see mps_env.hpp).
 *
 * No daemon outlives the process that started it, however that process ends: a watchdog
 * (`sh`, in a session of its own, ignoring the job's signals) reads a pipe whose only write end
 * this process holds (close-on-exec, so no task inherits it). End of file on it means this
 * process is gone or called stop(): the watchdog then sends `quit` to the control daemon
 * (`echo quit | nvidia-cuda-mps-control` with the same pipe folder) and removes the folders.
 * So kill -9 of this process stops the daemon too, and every ending sends `quit` exactly once.
 */
class MpsDaemon {
public:
    /**
     * Starts the watchdog, then `nvidia-cuda-mps-control -d`, and waits for the control
     * program's foreground part to return (it forks the daemon and exits 0).
     * @param program  the control program (find_mps_control())
     * @throws Error when the folders cannot be made or the program does not start the daemon
     */
    explicit MpsDaemon(const std::string& program);
    ~MpsDaemon();
    MpsDaemon(const MpsDaemon&) = delete;
    MpsDaemon& operator=(const MpsDaemon&) = delete;

    const std::string& pipe_dir() const noexcept { return pipe_dir_; }
    const std::string& log_dir() const noexcept { return log_dir_; }

    /** Has the watchdog quit the daemon, and waits (up to 10 s) until it has. Idempotent. */
    void stop();

private:
    std::string program_;
    std::string root_;
    std::string pipe_dir_;
    std::string log_dir_;
    int watchdog_pipe_ = -1;  ///< the write end; closing it is the watchdog's signal
    pid_t watchdog_ = -1;
};

}  // namespace shardrun::gpu
