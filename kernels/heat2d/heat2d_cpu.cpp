#include <cmath>
#include <numbers>
#include <sstream>
#include <utility>
#include <vector>

#include "kernels/common/checks.hpp"
#include "kernels/common/errors.hpp"
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
    if (params.nx < 3) throw InvalidKernelArgument("nx", "nx = " + std::to_string(params.nx) + " must be >= 3");
    if (params.ny < 3) throw InvalidKernelArgument("ny", "ny = " + std::to_string(params.ny) + " must be >= 3");
    if (params.steps < 0) throw InvalidKernelArgument("steps", "steps must be >= 0");
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
        throw InvalidKernelArgument("dt", text.str());
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

}  // namespace

void heat2d(const Device&, const Heat2dParams& params, double* field)
{
    validate_heat2d(params);
    const std::int64_t nx = params.nx, ny = params.ny;
    const double h = heat2d_spacing(params);
    const double r = params.alpha * params.dt / (h * h), dt_source = params.dt * params.source;
    std::vector<double> scratch(field, field + nx * ny);  // same boundaries as the field
    // A step of a small grid is shorter than an OpenMP barrier: keep those on one thread.
    const bool threaded = nx * ny >= parallel_points;
#pragma omp parallel if (threaded)
    {
        double* current = field;
        double* next = scratch.data();
        for (std::int64_t step = 0; step < params.steps; ++step) {
#pragma omp for schedule(static)
            for (std::int64_t j = 1; j < ny - 1; ++j) {
                const double* row = current + j * nx;
                double* out = next + j * nx;
#pragma omp simd
                for (std::int64_t i = 1; i < nx - 1; ++i) {
                    out[i] = heat2d_point(row[i], row[i - nx], row[i + nx], row[i + 1], row[i - 1], r, dt_source);
                }
            }
            std::swap(current, next);  // the implicit barrier above makes this safe
        }
#pragma omp single
        if (current != field) std::copy(current, current + nx * ny, field);
    }
}

}  // namespace cpu
}  // namespace shardrun::kernels
