#pragma once

#include <optional>
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
 *   Timeouts: RCLONE_CONTIMEOUT 5s, RCLONE_TIMEOUT 5s (no byte for that long), RCLONE_RETRIES 2,
 *   RCLONE_LOW_LEVEL_RETRIES 1, instead of rclone's 1m, 5m, 3 and 10, under which a call against
 *   an endpoint that accepts connections and never answers lived for over 6 minutes. rclone 1.60's
 *   S3 client still waits out several timeouts per attempt there (measured against a frozen moto:
 *   one attempt of an upload 26 s, of a download 41 s; with 10s/30s/2/3 an upload lived 277 s).
 *   Any RCLONE_* variable the user set wins over these.
 */
namespace shardrun::storage {

/** A transfer that failed: one line quoting rclone's cause. */
class TransferError : public Error {
public:
    TransferError(const char* file, int line, const std::string& what, int code = exit_task_failed, std::string cause = "")
        : Error(file, line, what), code_(code), cause_(std::move(cause)) {}
    int exit_code() const noexcept override { return code_; }
    /** rclone's line naming the cause (RcloneResult::error), when rclone failed; else empty. */
    const std::string& cause() const noexcept { return cause_; }

private:
    int code_;
    std::string cause_;
};

/** rclone's exit status and the line of its errors that names the cause. */
struct RcloneResult {
    int exit_code = 0;
    std::string error;  ///< cause_line() of rclone's stderr (empty when it exited 0)
    std::string log;    ///< rclone's whole stderr (with -v in the arguments: its INFO lines too)
    bool ok() const noexcept { return exit_code == 0; }
    /** rclone's 3 (directory not found) and 4 (file not found). */
    bool not_found() const noexcept { return exit_code == 3 || exit_code == 4; }
};

/**
 * Runs `rclone <args...>` with the environment mapped as above; waits for it. It runs with -q
 * (errors only) unless `args` holds -v.
 * @param limit_seconds  0: none (rclone's own timeouts bound it); else the call is killed then and
 *                       fails with exit 124 ("no answer within N s")
 * @param stdout_path    where rclone's stdout goes (empty: nowhere)
 * @param stdout_fd      else this open file takes it (`rclone cat`'s bytes into a memfd); -1: none
 * @param stdin_path     what rclone reads as its stdin (`rclone rcat`'s bytes); empty: /dev/null
 */
RcloneResult run_rclone(const std::vector<std::string>& args, double limit_seconds = 0, const std::string& stdout_path = "",
                        int stdout_fd = -1, const std::string& stdin_path = "");

/**
 * The line of rclone's stderr `text` that names why it failed, without rclone's time stamps and
 * retry prefixes: the last one that names a known cause (NoCredentialProviders, InvalidAccessKeyId,
 * SignatureDoesNotMatch, NoSuchBucket, AccessDenied, GCS's googleapi errors, connection errors),
 * else the last message. Continuation lines (a tab first: "caused by", "status code") are joined
 * to their message, so "NoCredentialProviders: ..." is not lost behind "For verbose messaging ...".
 */
std::string cause_line(const std::string& text);

/**
 * The flags of a call that its caller retries itself (the background uploads): one attempt, and
 * no answer for 5 s is a failure, so one call cannot hang for minutes.
 */
std::vector<std::string> single_attempt_flags();

/**
 * The object `remote`'s bytes, or nullopt with `result` saying why (not_found() when it does not exist).
 * @param limit_seconds  as run_rclone's
 */
std::optional<std::string> read_object(const std::string& remote, double limit_seconds, RcloneResult& result);

/** The environment rclone gets: this process's, plus the mappings above. */
std::vector<std::string> rclone_environment();

/**
 * Uploads `names` (relative to `local_dir`) into `remote_dir` in one call, each file as one
 * object (a PUT or a multipart upload: the object appears whole or not at all).
 * @param copied  when given, the names rclone reported copied, also when the call failed part way
 *                (an outage in the middle of a batch): those objects are in the bucket
 * @param limit_seconds  as run_rclone's (0: rclone's own timeouts bound the call)
 * @throws TransferError
 */
void upload_files(const std::string& local_dir, const std::string& remote_dir, const std::vector<std::string>& names,
                  const std::vector<std::string>& flags = {}, std::vector<std::string>* copied = nullptr,
                  double limit_seconds = 0);

/** Pure: the files rclone -v says it copied ("INFO  : r0/seg.h5: Copied (new)") in its stderr `log`. */
std::vector<std::string> copied_files(const std::string& log);

/** Uploads one file as the object `remote`. @throws TransferError */
void upload_file(const std::string& local_file, const std::string& remote, const std::vector<std::string>& flags = {});

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
