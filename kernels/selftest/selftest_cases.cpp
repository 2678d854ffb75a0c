#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/seeded.hpp"
#include "kernels/reference/reference.hpp"
#include "kernels/selftest/selftest.hpp"

// Small, odd sizes (not multiples of a warp or a SIMD width) and seeded random inputs.
namespace shardrun::kernels::selftest_cases {
namespace {

template <typename T>
std::vector<T> random_values(std::size_t count, std::uint64_t seed, T lo = T(-1), T hi = T(1))
{
    std::vector<T> values(count);
    fill_seeded(values.data(), count, seed, 0, lo, hi);
    return values;
}

template <typename... Extents>
std::string size_text(Extents... extents)
{
    std::string text;
    ((text += (text.empty() ? "" : "x") + std::to_string(extents)), ...);
    return text;
}

template <typename T>
SelftestRow gemm_case(const Device& device, const char* dtype, double threshold)
{
    const GemmShape shape{65, 33, 47};
    const auto a = random_values<T>(shape.m * shape.k, 11), b = random_values<T>(shape.k * shape.n, 12);
    std::vector<T> c(shape.m * shape.n);
    gemm(device, shape, a.data(), b.data(), c.data(), 1);
    const double error = reference::relative_error(c, reference::gemm(shape, a.data(), b.data()));
    return {"gemm", device.label(), dtype, size_text(shape.m, shape.n, shape.k), error, threshold};
}

}  // namespace

SelftestRow gemm_float32(const Device& device) { return gemm_case<float>(device, "float32", 1e-5); }

SelftestRow gemm_float64(const Device& device) { return gemm_case<double>(device, "float64", 1e-12); }

SelftestRow blur_float32(const Device& device)
{
    const BlurShape shape{3, 40, 37, 1.7};
    const auto images = random_values<float>(shape.images * shape.height * shape.width, 21, 0.0f, 1.0f);
    std::vector<float> out(images.size());
    blur(device, shape, images.data(), out.data());
    const double error = reference::relative_error(out, reference::blur(shape, images.data()));
    return {"blur", device.label(), "float32", size_text(shape.images, shape.height, shape.width), error, 1e-5};
}

SelftestRow heat2d_float64(const Device& device)
{
    Heat2dParams params{33, 29, 0.7, 0.0, 50, 1.5, 2.0, 0.1};
    params.dt = 0.9 * heat2d_stable_dt(params);
    auto field = heat2d_initial(params);
    const auto want = reference::heat2d(params, field);
    heat2d(device, params, field.data());
    return {"heat2d", device.label(), "float64", size_text(params.nx, params.ny, params.steps),
            reference::relative_error(field, want), 1e-12};
}

SelftestRow montecarlo_paths(const Device& device)
{
    const OptionParams option{100.0, 95.0, 0.02, 0.3, 0.75};
    const std::int64_t paths = 100'001;
    const auto price = montecarlo_price(option, montecarlo_sums(device, option, 31, 0, paths));
    const double want = reference::montecarlo(option, 31, paths);
    return {"montecarlo", device.label(), "float64", size_text(paths), std::abs(price.price - want) / want, 1e-6};
}

SelftestRow montecarlo_closed_form(const Device& device)
{
    const OptionParams option{100.0, 110.0, 0.05, 0.2, 1.0};
    const auto price = montecarlo_price(option, montecarlo_sums(device, option, 5, 0, 200'000));
    const double sigmas = std::abs(price.price - black_scholes_call(option)) / price.standard_error;
    return {"montecarlo/bs", device.label(), "float64", size_text(200'000), sigmas, 3.0, false,
            "error in standard errors from the closed form"};
}

SelftestRow embed_float32(const Device& device)
{
    const EmbedShape shape{50, 40, 24, Activation::gelu};
    const auto x = random_values<float>(shape.rows * shape.input_dim, 41);
    const auto w = random_values<float>(shape.input_dim * shape.output_dim, 42, -0.3f, 0.3f);
    std::vector<float> e(shape.rows * shape.output_dim);
    embed(device, shape, x.data(), w.data(), e.data());
    const double error = reference::relative_error(e, reference::embed(shape, x.data(), w.data()));
    return {"embed", device.label(), "float32", size_text(shape.rows, shape.input_dim, shape.output_dim), error, 1e-5};
}

}  // namespace shardrun::kernels::selftest_cases
