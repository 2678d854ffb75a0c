#include "io/input/ranged_file_driver.hpp"

#include <hdf5.h>

#include "io/input/dataset_reader.hpp"

namespace shardrun::io {
namespace {

using State = RangedFileAccess::State;

/** What HDF5 copies into the property list: the state lives in RangedFileAccess. */
struct DriverInfo {
    State* state;
};

/** One open file; HDF5 fills `base` after open() returns. */
struct OpenFile {
    H5FD_t base;  // first: HDF5 hands back the H5FD_t* it got
    State* state;
    std::uint64_t size;
    haddr_t eoa;
};

OpenFile* open_file_of(const H5FD_t* file) { return reinterpret_cast<OpenFile*>(const_cast<H5FD_t*>(file)); }

H5FD_t* open_ranged(const char* /*name*/, unsigned flags, hid_t fapl, haddr_t /*maxaddr*/)
{
    if ((flags & (H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC)) != 0) return nullptr;  // read-only
    const auto* info = static_cast<const DriverInfo*>(H5Pget_driver_info(fapl));
    if (info == nullptr || info->state == nullptr) return nullptr;
    auto* file = new OpenFile{};
    file->state = info->state;
    file->size = info->state->cache.size();
    return &file->base;
}

herr_t close_ranged(H5FD_t* file)
{
    delete open_file_of(file);
    return 0;
}

haddr_t get_eoa(const H5FD_t* file, H5FD_mem_t /*type*/) { return open_file_of(file)->eoa; }

herr_t set_eoa(H5FD_t* file, H5FD_mem_t /*type*/, haddr_t addr)
{
    open_file_of(file)->eoa = addr;
    return 0;
}

haddr_t get_eof(const H5FD_t* file, H5FD_mem_t /*type*/) { return open_file_of(file)->size; }

herr_t read_ranged(H5FD_t* file, H5FD_mem_t /*type*/, hid_t /*dxpl*/, haddr_t addr, size_t size, void* buffer)
{
    auto* open = open_file_of(file);
    // No exception may cross HDF5's C frames: keep the first and fail the read.
    try {
        open->state->cache.read(addr, size, static_cast<char*>(buffer));
        return 0;
    } catch (...) {
        if (!open->state->error) open->state->error = std::current_exception();
        return -1;
    }
}

herr_t refuse_write(H5FD_t*, H5FD_mem_t, hid_t, haddr_t, size_t, const void*) { return -1; }

const H5FD_class_t& driver_class()
{
    static const H5FD_class_t cls = [] {
        H5FD_class_t c{};
        c.name = "shardrun_ranged";
        c.maxaddr = (static_cast<haddr_t>(1) << 62) - 1;
        c.fc_degree = H5F_CLOSE_WEAK;
        c.fapl_size = sizeof(DriverInfo);  // plain bytes: HDF5 copies and frees them itself
        c.open = open_ranged;
        c.close = close_ranged;
        c.get_eoa = get_eoa;
        c.set_eoa = set_eoa;
        c.get_eof = get_eof;
        c.read = read_ranged;
        c.write = refuse_write;
        for (auto& type : c.fl_map) type = H5FD_MEM_DEFAULT;  // read-only: no free lists to keep apart
        return c;
    }();
    return cls;
}

/** Registered once per process (HDF5 keeps it until the library closes). */
hid_t driver_id()
{
    static hid_t id = -1;
    if (id < 0 || H5Iis_valid(id) <= 0) id = H5FDregister(&driver_class());
    if (id < 0) SHARDRUN_THROW(InputError, "cannot register shardrun's ranged-read HDF5 driver");
    return id;
}

}  // namespace

RangedFileAccess::RangedFileAccess(const RangedFile& file)
    : state_(std::make_unique<State>(State{PageCache(file, page_size), nullptr}))
{
    fapl_ = H5Pcreate(H5P_FILE_ACCESS);
    const DriverInfo info{state_.get()};
    if (fapl_ < 0 || H5Pset_driver(fapl_, driver_id(), &info) < 0) {
        if (fapl_ >= 0) H5Pclose(fapl_);
        SHARDRUN_THROW(InputError, file.name + ": cannot set up ranged reads");
    }
}

RangedFileAccess::~RangedFileAccess()
{
    if (fapl_ >= 0) H5Pclose(fapl_);
}

void RangedFileAccess::rethrow_read_error() const
{
    if (state_->error) std::rethrow_exception(state_->error);
}

}  // namespace shardrun::io
