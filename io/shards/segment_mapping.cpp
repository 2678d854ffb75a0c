// A segment's large rows read where the page cache holds them (segment_mapping.hpp).
#include "io/shards/segment_mapping.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/errors.hpp"
#include "io/hdf5/handle.hpp"
#include "io/task_rows/task_rows.hpp"

namespace shardrun::io::shards {

MappedFile::MappedFile(const std::filesystem::path& file)
{
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) SHARDRUN_THROW(Hdf5Error, "cannot open " + file.string() + ": " + std::strerror(errno));
    struct stat info{};
    if (::fstat(fd, &info) != 0 || info.st_size <= 0) {
        ::close(fd);
        SHARDRUN_THROW(Hdf5Error, "cannot map " + file.string() + ": empty or unreadable");
    }
    size_ = static_cast<std::size_t>(info.st_size);
    // MAP_POPULATE: the page tables are filled in one call, not a fault per page.
    void* at = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    ::close(fd);
    if (at == MAP_FAILED) SHARDRUN_THROW(Hdf5Error, "cannot map " + file.string() + ": " + std::strerror(errno));
    data_ = static_cast<const std::byte*>(at);
}

MappedFile::~MappedFile()
{
    if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

const std::byte* MappedFile::fill_row(const FieldSpec& spec)
{
    auto& fill = fills_.emplace_back();
    append_fill(fill, spec, 1);
    return fill.data();
}

std::vector<const std::byte*> map_row_chunks(hid_t dataset, const FieldSpec& spec, std::size_t rows, MappedFile& file)
{
    std::vector<const std::byte*> out(rows);
    std::vector<hsize_t> offset(spec.shape.size() + 1, 0);
    const std::byte* fill = nullptr;
    for (std::size_t i = 0; i < rows; ++i) {
        offset[0] = i;
        unsigned filters = 0;
        haddr_t address = HADDR_UNDEF;
        hsize_t size = 0;
        SHARDRUN_H5_CHECK(H5Dget_chunk_info_by_coord(dataset, offset.data(), &filters, &address, &size));
        if (address == HADDR_UNDEF) {
            if (fill == nullptr) fill = file.fill_row(spec);
            out[i] = fill;  // never written: a task without a result
            continue;
        }
        if (filters != 0 || size != spec.bytes() || address > file.size() || file.size() - address < size) {
            SHARDRUN_THROW(Hdf5Error, "row " + std::to_string(i) + " of '" + spec.name + "' is not a whole chunk in the file");
        }
        out[i] = file.data() + address;
    }
    return out;
}

}  // namespace shardrun::io::shards
