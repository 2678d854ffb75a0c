#pragma once

#include <string>
#include <vector>

#include "base/error.hpp"

/**
 * @file
 * Every transfer to and from object storage goes through rclone (Debian's package), started as
 * a child process: no HTTP is written here. Credentials and endpoints come from rclone's own
 * chains and from the standard variables (README, "Results in object storage"):
 *
 *   S3:  env_auth (instance role, AWS_ACCESS_KEY_ID..., AWS_PROFILE); AWS_ENDPOINT_URL_S3 or
 *        AWS_ENDPOINT_URL -> the endpoint (provider Other); AWS_REGION / AWS_DEFAULT_REGION;
 *        AWS_CA_BUNDLE -> --ca-cert (rclone 1.60's SDK refuses the variable itself).
 *   GCS: application default credentials (rclone's fallback when no token is configured);
 *        STORAGE_EMULATOR_HOST -> the endpoint <host>/storage/v1/, anonymous.
 *   Any RCLONE_* variable the user set wins over these.
 */
namespace shardrun::storage {

/** A transfer that failed: one line with rclone's last message. */
class TransferError : public Error {
public:
    TransferError(const char* file, int line, const std::string& what, int code = exit_task_failed)
        : Error(file, line, what), code_(code) {}
    int exit_code() const noexcept override { return code_; }

private:
    int code_;
};

/** rclone's exit status and its last line of errors. */
struct RcloneResult {
    int exit_code = 0;
    std::string error;  ///< the last line rclone wrote to stderr (empty when it exited 0)
    bool ok() const noexcept { return exit_code == 0; }
    /** rclone's 3 (directory not found) and 4 (file not found). */
    bool not_found() const noexcept { return exit_code == 3 || exit_code == 4; }
};

/**
 * Runs `rclone <args...>` with the environment mapped as above; waits for it.
 * @param stdout_fd  where rclone's stdout goes (`rclone cat`'s bytes); -1: nowhere
 */
RcloneResult run_rclone(const std::vector<std::string>& args, int stdout_fd = -1);

/** The environment rclone gets: this process's, plus the mappings above. */
std::vector<std::string> rclone_environment();

/**
 * Uploads `names` (relative to `local_dir`) into `remote_dir` in one call, each file as one
 * object (a PUT or a multipart upload: the object appears whole or not at all).
 * @throws TransferError
 */
void upload_files(const std::string& local_dir, const std::string& remote_dir, const std::vector<std::string>& names);

/** Uploads one file as the object `remote`. @throws TransferError */
void upload_file(const std::string& local_file, const std::string& remote);

/**
 * Copies what is under `remote_dir` into `local_dir` (files already there with the same size and
 * time are skipped). `includes`: rclone filter patterns (empty: everything).
 * @return false when `remote_dir` does not exist (nothing copied)
 * @throws TransferError for any other failure
 */
bool download(const std::string& remote_dir, const std::string& local_dir, const std::vector<std::string>& includes = {});

/** Deletes the objects `names` (relative to `remote_dir`); missing ones are no error. @throws TransferError */
void delete_files(const std::string& remote_dir, const std::vector<std::string>& names);

/** `name` as an rclone filter pattern that matches only itself ("/run.h5", glob characters escaped). */
std::string exact_pattern(const std::string& name);

}  // namespace shardrun::storage
