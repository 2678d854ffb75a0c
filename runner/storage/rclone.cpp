#include "runner/storage/rclone.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
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

std::string last_line(const std::string& file)
{
    std::ifstream in(file);
    std::string line, last;
    while (std::getline(in, line)) {
        if (!line.empty()) last = line;
    }
    // rclone starts each line with its time ("2026/11/26 12:45:21 "): the message is what follows.
    if (last.size() > 20 && last[4] == '/' && last[7] == '/' && last[13] == ':' && last[19] == ' ') last.erase(0, 20);
    return last;
}

std::string list_text(const std::vector<std::string>& names)
{
    std::string text;
    for (const auto& name : names) text += name + "\n";
    return text;
}

void check(const RcloneResult& result, const std::string& what)
{
    if (!result.ok()) {
        SHARDRUN_THROW(TransferError, "cannot " + what + ": rclone exited " + std::to_string(result.exit_code) + ": " +
                                          result.error + "; check the credentials, the endpoint and that the bucket exists");
    }
}

}  // namespace

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

RcloneResult run_rclone(const std::vector<std::string>& args, int stdout_fd)
{
    const TempFile errors;
    process::ProcessSpec spec;
    spec.argv = {env_or("SHARDRUN_RCLONE", "rclone")};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.push_back("-q");  // errors only
    spec.env = rclone_environment();
    // Tagged like a task: when this rank dies (kill -9), its orphan guard kills the upload too, so an
    // upload cannot land after a rerun on another machine has fetched the bucket and reused its name.
    spec.token = process::rank_token() + "/rclone";
    const auto variable = std::string(process::task_token_variable) + "=";
    std::erase_if(spec.env, [&variable](const std::string& entry) { return entry.rfind(variable, 0) == 0; });
    spec.env.push_back(std::string(process::task_token_variable) + "=" + spec.token);
    spec.stdout_path = "/dev/null";
    spec.stdout_fd = stdout_fd;
    spec.stderr_path = errors.path();
    // Never stopped by shardrun's drain: what was committed must reach the bucket before exit 3.
    const auto result = process::run_process(spec, [] { return false; });
    if (!result.started) {
        return {127, "rclone not found (install Debian's rclone, or set SHARDRUN_RCLONE to its path)"};
    }
    return {result.exit_code, result.exit_code == 0 ? std::string() : last_line(errors.path())};
}

void upload_files(const std::string& local_dir, const std::string& remote_dir, const std::vector<std::string>& names)
{
    if (names.empty()) return;
    const TempFile list(list_text(names));
    // --no-traverse and --no-check-dest: new names only, so no listing or HEAD per object.
    check(run_rclone({"copy", local_dir, remote_dir, "--files-from-raw", list.path(), "--no-traverse", "--no-check-dest"}),
          "upload " + std::to_string(names.size()) + " file(s) of " + local_dir + " to " + remote_dir);
}

void upload_file(const std::string& local_file, const std::string& remote)
{
    check(run_rclone({"copyto", local_file, remote, "--no-check-dest"}), "upload " + local_file + " to " + remote);
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
