#include "runner/storage/rclone.hpp"
#include "runner/storage/transfer_failure.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <fstream>
#include <map>
#include <vector>

#include "runner/process/process.hpp"
#include "runner/process/process_tree.hpp"
#include "runner/storage/local_mirror.hpp"

extern char** environ;

namespace fs = std::filesystem;

namespace shardrun::storage {
namespace {

std::string env_or(const char* name, const std::string& fallback = "")
{
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? value : fallback;
}

/** A file in the scratch folder removed with this object (rclone's --files-from lists and its stderr). */
class TempFile {
public:
    explicit TempFile(const std::string& text = "")
    {
        std::error_code error;
        fs::create_directories(scratch_dir(), error);
        std::string pattern = (fs::path(scratch_dir()) / "shardrun-rclone-XXXXXX").string();
        const int fd = mkstemp(pattern.data());
        if (fd < 0) SHARDRUN_THROW(TransferError, "cannot create a temporary file in " + scratch_dir() + "; set SHARDRUN_SCRATCH to a writable folder");
        path_ = pattern;
        if (!text.empty() && write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
            close(fd);
            SHARDRUN_THROW(TransferError, "cannot write " + path_);
        }
        close(fd);
    }
    ~TempFile()
    {
        std::error_code error;
        fs::remove(path_, error);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
};

std::string read_text(const std::string& file)
{
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool has_time_stamp(const std::string& line)
{
    return line.size() > 20 && line[4] == '/' && line[7] == '/' && line[13] == ':' && line[19] == ' ';
}

/**
 * rclone's messages in `text`: each starts with its time ("2026/11/26 12:45:21 ", dropped); the
 * lines without one ("\tstatus code: 403", "caused by: ...") are joined to the message before.
 */
std::vector<std::string> messages(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos) continue;
        if (has_time_stamp(line)) {
            out.push_back(line.substr(20));
        } else if (out.empty()) {
            out.push_back(line.substr(first));
        } else {
            out.back() += " " + line.substr(first);
        }
    }
    return out;
}

/** `message` without what repeats in every line: "ERROR : ", "Attempt 1/1 failed with 1 errors and: ", request ids. */
std::string tidy(std::string message)
{
    for (const std::string prefix : {"ERROR : ", "NOTICE: "}) {
        if (message.rfind(prefix, 0) == 0) message.erase(0, prefix.size());
    }
    if (const auto at = message.find("failed with "); message.rfind("Attempt ", 0) == 0 && at != std::string::npos) {
        if (const auto colon = message.find(": ", at); colon != std::string::npos) message.erase(0, colon + 2);
    }
    if (const auto at = message.find(", request id:"); at != std::string::npos) message.erase(at);
    constexpr std::size_t longest = 400;
    if (message.size() > longest) message = message.substr(0, longest) + " ...";
    return message;
}

// Words that name why a call failed, most telling first: credentials and the bucket, then the network.
constexpr std::array cause_words{
    "NoCredentialProviders", "InvalidAccessKeyId", "SignatureDoesNotMatch", "NoSuchBucket", "AccessDenied",
    "ExpiredToken", "InvalidToken", "RequestTimeTooSkewed", "InvalidClientTokenId", "PermanentRedirect",
    "could not find default credentials", "invalid_grant", "googleapi: Error", "oauth2:",
    "x509:", "no such host", "connection refused", "timeout awaiting response headers", "i/o timeout",
    "TLS handshake timeout", "context deadline exceeded", "connection reset"};

std::string list_text(const std::vector<std::string>& names)
{
    std::string text;
    for (const auto& name : names) text += name + "\n";
    return text;
}

}  // namespace

std::string cause_line(const std::string& text)
{
    auto lines = messages(text);
    // -v's progress (a file copied, the closing statistics) names no cause.
    std::erase_if(lines, [](const std::string& line) { return line.rfind("INFO ", 0) == 0; });
    for (const auto* word : cause_words) {
        for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
            if (line->find(word) != std::string::npos) return tidy(*line);
        }
    }
    return lines.empty() ? std::string() : tidy(lines.back());
}

namespace {

void check(const RcloneResult& result, const std::string& what)
{
    if (!result.ok()) SHARDRUN_THROW(TransferError, transfer_failure(what, result), exit_task_failed, result.error);
}

/** " (AWS_ENDPOINT_URL=http://...)": the endpoint variables set, which rclone calls instead of the clouds' own. */
std::string endpoint_note()
{
    std::string named;
    for (const char* name : {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "RCLONE_S3_ENDPOINT", "STORAGE_EMULATOR_HOST",
                             "RCLONE_GCS_ENDPOINT"}) {
        if (const auto value = env_or(name); !value.empty()) named += (named.empty() ? "" : ", ") + std::string(name) + "=" + value;
    }
    return named.empty() ? std::string() : " (" + named + ")";
}

}  // namespace

std::string transfer_failure(const std::string& what, const RcloneResult& result)
{
    return "cannot " + what + ": rclone exited " + std::to_string(result.exit_code) + ": " + result.error +
           "; check the credentials, the endpoint" + endpoint_note() + " and that the bucket exists";
}

std::vector<std::string> rclone_environment()
{
    std::map<std::string, std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string text = *entry;
        const auto equals = text.find('=');
        if (equals != std::string::npos) env[text.substr(0, equals)] = text.substr(equals + 1);
    }
    const auto set_default = [&env](const std::string& name, const std::string& value) {
        if (!value.empty() && env.find(name) == env.end()) env[name] = value;
    };
    // S3: the AWS SDK's chain (role, AWS_* variables, profile), and the standard endpoint variables.
    const auto endpoint = env_or("AWS_ENDPOINT_URL_S3", env_or("AWS_ENDPOINT_URL"));
    set_default("RCLONE_S3_PROVIDER", endpoint.empty() ? "AWS" : "Other");
    set_default("RCLONE_S3_ENV_AUTH", "true");
    set_default("RCLONE_S3_ENDPOINT", endpoint);
    set_default("RCLONE_S3_REGION", env_or("AWS_REGION", env_or("AWS_DEFAULT_REGION")));
    // The bucket must exist: no CreateBucket/HEAD per call (a role may not be allowed either).
    set_default("RCLONE_S3_NO_CHECK_BUCKET", "true");
    // No call hangs for minutes when the endpoint accepts connections and never answers (rclone.hpp).
    set_default("RCLONE_CONTIMEOUT", "5s");
    set_default("RCLONE_TIMEOUT", "5s");
    set_default("RCLONE_RETRIES", "2");
    set_default("RCLONE_LOW_LEVEL_RETRIES", "1");
    set_default("RCLONE_GCS_NO_CHECK_BUCKET", "true");
    // rclone 1.60's AWS SDK fails every S3 call when AWS_CA_BUNDLE is set ("LoadCustomCABundleError:
    // ... HTTPClient's transport unsupported type"): the same file goes to rclone's own --ca-cert.
    if (const auto bundle = env_or("AWS_CA_BUNDLE"); !bundle.empty()) {
        set_default("RCLONE_CA_CERT", bundle);
        env.erase("AWS_CA_BUNDLE");
    }
    // GCS emulators (gcp-storage-emulator, fake-gcs-server) take the JSON API at <host>/storage/v1/.
    if (auto host = env_or("STORAGE_EMULATOR_HOST"); !host.empty()) {
        if (host.find("://") == std::string::npos) host = "http://" + host;
        if (host.back() == '/') host.pop_back();
        set_default("RCLONE_GCS_ENDPOINT", host + "/storage/v1/");
        set_default("RCLONE_GCS_ANONYMOUS", "true");
    }
    std::vector<std::string> out;
    for (const auto& [name, value] : env) out.push_back(name + "=" + value);
    return out;
}

RcloneResult run_rclone(const std::vector<std::string>& args, double limit_seconds, const std::string& stdout_path,
                        int stdout_fd, const std::string& stdin_path)
{
    const TempFile errors;
    process::ProcessSpec spec;
    spec.argv = {env_or("SHARDRUN_RCLONE", "rclone")};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    if (std::find(args.begin(), args.end(), "-v") == args.end()) spec.argv.push_back("-q");  // errors only
    spec.env = rclone_environment();
    // Tagged like a task: when this rank dies (kill -9), its orphan guard kills the upload too, so an
    // upload cannot land after a rerun on another machine has fetched the bucket and reused its name.
    spec.token = process::rank_token() + "/rclone";
    const auto variable = std::string(process::task_token_variable) + "=";
    std::erase_if(spec.env, [&variable](const std::string& entry) { return entry.rfind(variable, 0) == 0; });
    spec.env.push_back(std::string(process::task_token_variable) + "=" + spec.token);
    spec.stdout_path = stdout_path.empty() ? "/dev/null" : stdout_path;
    spec.stdout_fd = stdout_fd;
    spec.stdin_path = stdin_path;
    spec.stderr_path = errors.path();
    spec.timeout_seconds = limit_seconds;
    spec.grace_seconds = 1;
    // Never stopped by shardrun's drain: what was committed must reach the bucket before exit 3.
    const auto result = process::run_process(spec, [] { return false; });
    if (!result.started) {
        return {127, "rclone not found (install Debian's rclone, or set SHARDRUN_RCLONE to its path)"};
    }
    auto log = read_text(errors.path());
    if (result.timed_out) return {124, "no answer within " + std::to_string(static_cast<int>(limit_seconds)) + " s", log};
    auto error = result.exit_code == 0 ? std::string() : cause_line(log);
    return {result.exit_code, std::move(error), std::move(log)};
}

std::vector<std::string> single_attempt_flags()
{
    return {"--retries", "1", "--low-level-retries", "1", "--contimeout", "5s", "--timeout", "5s"};
}

std::optional<std::string> read_object(const std::string& remote, double limit_seconds, RcloneResult& result)
{
    const TempFile out;
    result = run_rclone({"cat", remote, "--retries", "1", "--low-level-retries", "1"}, limit_seconds, out.path());
    if (!result.ok()) return std::nullopt;
    return read_text(out.path());
}

void upload_files(const std::string& local_dir, const std::string& remote_dir, const std::vector<std::string>& names,
                  const std::vector<std::string>& flags, std::vector<std::string>* copied, double limit_seconds)
{
    if (names.empty()) return;
    const TempFile list(list_text(names));
    // --no-traverse and --no-check-dest: new names only, so no listing or HEAD per object.
    std::vector<std::string> args{"copy", local_dir, remote_dir, "--files-from-raw", list.path(), "--no-traverse", "--no-check-dest"};
    args.insert(args.end(), flags.begin(), flags.end());
    if (copied != nullptr) args.push_back("-v");  // a line per file copied
    const auto result = run_rclone(args, limit_seconds);
    if (copied != nullptr) *copied = copied_files(result.log);
    check(result, "upload " + std::to_string(names.size()) + " file(s) of " + local_dir + " to " + remote_dir);
}

std::vector<std::string> copied_files(const std::string& log)
{
    std::vector<std::string> files;
    for (const auto& message : messages(log)) {
        constexpr std::string_view info = "INFO  : ";
        constexpr std::string_view copied = ": Copied (";
        const auto end = message.rfind(copied);
        if (message.rfind(info, 0) == 0 && end != std::string::npos && end > info.size()) {
            files.push_back(message.substr(info.size(), end - info.size()));
        }
    }
    return files;
}

void upload_file(const std::string& local_file, const std::string& remote, const std::vector<std::string>& flags)
{
    std::vector<std::string> args{"copyto", local_file, remote, "--no-check-dest"};
    args.insert(args.end(), flags.begin(), flags.end());
    check(run_rclone(args), "upload " + local_file + " to " + remote);
}

bool download(const std::string& remote_dir, const std::string& local_dir, const std::vector<std::string>& includes)
{
    std::vector<std::string> args{"copy", remote_dir, local_dir};
    for (const auto& pattern : includes) {
        args.push_back("--include");
        args.push_back(pattern);
    }
    const auto result = run_rclone(args);
    if (result.not_found()) return false;
    check(result, "download " + remote_dir + " into " + local_dir);
    return true;
}

void delete_files(const std::string& remote_dir, const std::vector<std::string>& names)
{
    if (names.empty()) return;
    const TempFile list(list_text(names));
    const auto result = run_rclone({"delete", remote_dir, "--files-from-raw", list.path(), "--no-traverse"});
    if (!result.not_found()) check(result, "delete " + std::to_string(names.size()) + " object(s) under " + remote_dir);
}

std::string exact_pattern(const std::string& name)
{
    std::string pattern = "/";
    for (const char c : name) {
        if (std::string("*?[]{}\\").find(c) != std::string::npos) pattern += '\\';
        pattern += c;
    }
    return pattern;
}

}  // namespace shardrun::storage
