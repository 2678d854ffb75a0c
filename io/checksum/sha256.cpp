#include <openssl/evp.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <stdexcept>

#include "base/error.hpp"
#include "io/output_spec.hpp"

namespace shardrun::io {

std::string sha256_hex(const std::string& text)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
        SHARDRUN_THROW(Error, "OpenSSL EVP_Digest(SHA-256) failed");
    }
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

std::string job_hash(const JobMetadata& metadata)
{
    if (metadata.earlier_jobs.empty()) return sha256_hex(metadata.params_json);
    return sha256_hex(nlohmann::json(metadata.earlier_jobs).dump() + '\n' + metadata.params_json);
}

std::string extended_job_hash(const JobMetadata& metadata)
{
    if (metadata.earlier_jobs.empty()) return "";
    JobMetadata previous;
    previous.earlier_jobs.assign(metadata.earlier_jobs.begin(), metadata.earlier_jobs.end() - 1);
    previous.params_json = metadata.earlier_jobs.back();
    return job_hash(previous);
}

}  // namespace shardrun::io
