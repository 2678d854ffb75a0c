#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <sstream>
#include <utility>
#include <vector>

#include <omp.h>

#include "kernels/common/checks.hpp"
#include "kernels/common/errors.hpp"
#include "kernels/common/streaming_store.hpp"
#include "kernels/heat2d/heat2d.hpp"
#include "kernels/heat2d/heat2d_element.hpp"

namespace shardrun::kernels {

double heat2d_spacing(const Heat2dParams& params) { return 1.0 / static_cast<double>(params.nx - 1); }

double heat2d_stable_dt(const Heat2dParams& params)
{
    const double h = heat2d_spacing(params);
    return h * h / (4.0 * params.alpha);
}

void validate_heat2d(const Heat2dParams& params)
{
    if (params.nx < 3) SHARDRUN_THROW(InvalidKernelArgument, "nx", "nx = " + std::to_string(params.nx) + " must be >= 3");
    if (params.ny < 3) SHARDRUN_THROW(InvalidKernelArgument, "ny", "ny = " + std::to_string(params.ny) + " must be >= 3");
    if (params.steps < 0) SHARDRUN_THROW(InvalidKernelArgument, "steps", "steps must be >= 0");
    require_finite("alpha", params.alpha, true);
    require_finite("dt", params.dt, true);
    require_finite("source", params.source);
    require_finite("amplitude", params.amplitude);
    require_finite("boundary", params.boundary);
    const double limit = heat2d_stable_dt(params);
    if (params.dt > limit) {
        std::ostringstream text;
        text << "dt = " << params.dt << " is unstable: the explicit scheme needs dt <= dx^2/(4*alpha) = " << limit
             << " (dx = " << heat2d_spacing(params) << ", alpha = " << params.alpha << ")";
        SHARDRUN_THROW(InvalidKernelArgument, "dt", text.str());
    }
    require_host_memory(2 * buffer_bytes({params.nx, params.ny}, sizeof(double)), "heat2d");
}

std::vector<double> heat2d_initial(const Heat2dParams& params)
{
    validate_heat2d(params);
    const auto nx = params.nx, ny = params.ny;
    std::vector<double> field(static_cast<std::size_t>(nx * ny), params.boundary);
    const double pi = std::numbers::pi;
    for (std::int64_t j = 1; j + 1 < ny; ++j) {
        const double sy = std::sin(pi * static_cast<double>(j) / static_cast<double>(ny - 1));
        for (std::int64_t i = 1; i + 1 < nx; ++i) {
            const double sx = std::sin(pi * static_cast<double>(i) / static_cast<double>(nx - 1));
            field[j * nx + i] = params.boundary + params.amplitude * sx * sy;
        }
    }
    return field;
}

namespace cpu {
namespace {

constexpr std::int64_t parallel_points = 1 << 16;
// Steps fused into one sweep over the field at most, and the cache their rows may take.
constexpr int max_fused_steps = 4;
constexpr std::size_t fused_rows_bytes = 256 << 10;
// Points of a row computed into a buffer on the stack (4 KiB, in L1) before the streaming
// stores copy them out.
constexpr std::int64_t row_chunk = 512;

struct Stepper {
    std::int64_t nx, ny;
    double r, dt_source;
    bool streaming;  // stores of the sweep's last step bypass the cache
};

// out = one step of the row `mid` between `above` and `below`; the boundary columns are not written.
inline void step_row(const double* above, const double* mid, const double* below, double* out, std::int64_t nx,
                     double r, double dt_source)
{
#pragma omp simd
    for (std::int64_t i = 1; i < nx - 1; ++i) {
        out[i] = heat2d_point(mid[i], above[i], below[i], mid[i + 1], mid[i - 1], r, dt_source);
    }
}

inline void step_row_streaming(const double* above, const double* mid, const double* below, double* out,
                               std::int64_t nx, double r, double dt_source)
{
    double buffer[row_chunk + 1];
    for (std::int64_t i0 = 1; i0 < nx - 1; i0 += row_chunk) {
        const std::int64_t n = std::min(row_chunk, nx - 1 - i0);
        step_row(above + i0 - 1, mid + i0 - 1, below + i0 - 1, buffer, n + 2, r, dt_source);  // buffer[1, n]
        streaming_copy(out + i0, buffer + 1, static_cast<std::size_t>(n));
    }
}

// Rows [a, b) of `to` = `levels` steps of `from`, in one sweep down the rows: step l's row j
// is computed as soon as step l-1's row j+1 is, so a row is read from memory once for all
// the steps. Steps 1 .. levels-1 keep their last three rows in `ring` (and, beyond [a, b),
// the rows the later steps need, which the neighbouring band computes too, identically).
void advance_band(const Stepper& s, const double* from, double* to, std::int64_t a, std::int64_t b, int levels,
                  double* ring)
{
    const std::int64_t nx = s.nx, ny = s.ny;
    const auto ring_row = [=](int level, std::int64_t j) { return ring + ((level - 1) * 3 + j % 3) * nx; };
    const auto in = [=](int level, std::int64_t j) -> const double* {
        return level == 0 || j == 0 || j == ny - 1 ? from + j * nx : ring_row(level, j);
    };
    for (std::int64_t sweep = std::max<std::int64_t>(1, a - levels + 1); sweep < b + levels - 1; ++sweep) {
        for (int level = 1; level <= levels; ++level) {
            const std::int64_t j = sweep - level + 1, halo = levels - level;
            if (j < std::max<std::int64_t>(1, a - halo) || j >= std::min(ny - 1, b + halo)) continue;
            const double *above = in(level - 1, j - 1), *mid = in(level - 1, j), *below = in(level - 1, j + 1);
            if (level == levels) {
                (s.streaming ? step_row_streaming : step_row)(above, mid, below, to + j * nx, nx, s.r, s.dt_source);
                continue;
            }
            double* out = ring_row(level, j);
            out[0] = from[j * nx], out[nx - 1] = from[j * nx + nx - 1];  // the boundary columns
            step_row(above, mid, below, out, nx, s.r, s.dt_source);
        }
    }
}

// Row j of `to` takes the boundary values of row j of `from`: whole edge rows, the two edge columns.
inline void copy_boundary(const double* from, double* to, std::int64_t j, std::int64_t nx, std::int64_t ny)
{
    const std::int64_t at = j * nx;
    if (j == 0 || j == ny - 1) {
        std::copy(from + at, from + at + nx, to + at);
    } else {
        to[at] = from[at];
        to[at + nx - 1] = from[at + nx - 1];
    }
}

}  // namespace

void heat2d(const Device& device, const Heat2dParams& params, double* field)
{
    validate_heat2d(params);
    const std::int64_t nx = params.nx, ny = params.ny;
    if (params.steps == 0) return;
    const double h = heat2d_spacing(params);
    const std::size_t points = static_cast<std::size_t>(nx * ny);
    // Two fields beyond the cache: each sweep reads one from memory and writes the other, and
    // streaming stores write it without first reading it (16 rather than 24 B a point).
    const Stepper stepper{nx, ny, params.alpha * params.dt / (h * h), params.dt * params.source,
                          2 * points * sizeof(double) > last_level_cache_bytes()};
    const auto ring_rows = static_cast<std::int64_t>(fused_rows_bytes / (3 * sizeof(double) * nx));
    const int depth = static_cast<int>(std::clamp<std::int64_t>(1 + ring_rows, 1, max_fused_steps));
    // Only the boundaries are copied: every sweep writes the whole interior. The pages are
    // first touched by the threads that write them.
    std::unique_ptr<double[]> scratch(new double[points]);
    // Shared: every thread leaves the steps at the same sweep. Sweep k's answer is in
    // stop_seen[k % 2]: the next write to it, two sweeps on, comes after every thread's read.
    bool stop_seen[2] = {false, false};
    bool stopped = false;
    // A step of a small grid is shorter than an OpenMP barrier: keep those on one thread.
#pragma omp parallel if (nx * ny >= parallel_points)
    {
#pragma omp for schedule(static)
        for (std::int64_t j = 0; j < ny; ++j) copy_boundary(field, scratch.get(), j, nx, ny);
        const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
        const std::int64_t a = 1 + (ny - 2) * t / threads, b = 1 + (ny - 2) * (t + 1) / threads;
        std::vector<double> ring(static_cast<std::size_t>(3 * (depth - 1) * nx));
        double* current = field;
        double* next = scratch.get();
        std::int64_t sweeps = 0, done = 0;
        for (; done < params.steps;) {
            const int levels = static_cast<int>(std::min<std::int64_t>(depth, params.steps - done));
            if (a < b) advance_band(stepper, current, next, a, b, levels, ring.data());
            if (stepper.streaming) streaming_fence();  // this thread's rows, before the others read them
            // The barrier every sweep needs is this single's: one thread looks at the stop
            // token, and all see its answer after the barrier.
            bool& seen = stop_seen[sweeps++ % 2];
#pragma omp single
            seen = device.stop.stop_requested();
            std::swap(current, next);
            done += levels;
            if (seen) break;
        }
#pragma omp single
        {
            stopped = done < params.steps;
            if (current != field && !stopped) std::copy(current, current + nx * ny, field);
        }
    }
    if (stopped) SHARDRUN_THROW(Stopped, "heat2d: stopped before it finished");
}

}  // namespace cpu
}  // namespace shardrun::kernels
