#include "bench_common.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <vector>

namespace shardrun::io::bench {

double cpu_seconds()
{
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) + double(now.tv_nsec) * 1e-9;
}

JobMetadata bench_metadata(std::uint64_t task_count)
{
    JobMetadata m;
    m.job_name = "io-bench";
    m.job_text = "name: io-bench\n";
    m.params_json = "{}";
    m.shardrun_version = "bench";
    m.task_count = task_count;
    m.end_task = task_count;
    m.param_names = {"x"};
    m.hostnames = {"localhost"};
    return m;
}

std::string bench_dir(const char* parent)
{
    std::string name = std::string(parent ? parent : "/tmp") + "/shardrun-io-bench-XXXXXX";
    if (!mkdtemp(name.data())) throw std::runtime_error("mkdtemp failed for " + name);
    return name;
}

double raw_posix_write(const std::string& file, std::size_t bytes, std::size_t piece, const void* data)
{
    const double start = seconds();
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + file);
    for (std::size_t done = 0; done < bytes;) {
        const std::size_t n = std::min(piece, bytes - done);
        if (::write(fd, data, n) != static_cast<ssize_t>(n)) throw std::runtime_error("write failed");
        ::fsync(fd);
        done += n;
    }
    ::close(fd);
    return seconds() - start;
}

double raw_posix_copy(const std::vector<std::string>& sources, const std::string& file, std::size_t piece)
{
    const double start = seconds();
    const int out = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0) throw std::runtime_error("cannot create " + file);
    std::vector<char> buffer(piece);
    std::size_t held = 0;
    const auto flush = [&] {
        if (held > 0 && ::write(out, buffer.data(), held) != static_cast<ssize_t>(held)) throw std::runtime_error("write failed");
        if (held > 0) ::fsync(out);
        held = 0;
    };
    for (const auto& source : sources) {
        const int in = ::open(source.c_str(), O_RDONLY);
        if (in < 0) throw std::runtime_error("cannot open " + source);
        while (true) {
            const ssize_t n = ::read(in, buffer.data() + held, buffer.size() - held);
            if (n <= 0) break;
            held += static_cast<std::size_t>(n);
            if (held == buffer.size()) flush();
        }
        ::close(in);
    }
    flush();
    ::close(out);
    return seconds() - start;
}

double raw_posix_read(const std::string& file)
{
    const double start = seconds();
    const int fd = ::open(file.c_str(), O_RDONLY);
    std::vector<char> buffer(std::size_t{4} << 20);
    while (fd >= 0 && ::read(fd, buffer.data(), buffer.size()) > 0) {
    }
    if (fd >= 0) ::close(fd);
    return seconds() - start;
}

}  // namespace shardrun::io::bench
