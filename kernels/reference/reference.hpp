#pragma once

#include <cstdint>
#include <vector>

#include "kernels/blur/blur.hpp"
#include "kernels/embed/embed.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/heat2d/heat2d.hpp"
#include "kernels/montecarlo/montecarlo.hpp"

/**
 * Plain float64 loops that define what each kernel must compute. Slow on purpose: the
 * selftest and the tests compare the CPU and CUDA kernels against them on small inputs.
 */
namespace shardrun::kernels::reference {

/** C = A·B with a float64 triple loop. */
std::vector<double> gemm(const GemmShape& shape, const float* a, const float* b);
std::vector<double> gemm(const GemmShape& shape, const double* a, const double* b);

/** Direct 2-D Gaussian convolution (float64 weights, clamped borders). */
std::vector<double> blur(const BlurShape& shape, const float* input);

/** params.steps explicit steps of the 5-point scheme, one point at a time. */
std::vector<double> heat2d(const Heat2dParams& params, std::vector<double> field);

/** act(X·W) normalised per row, in float64. */
std::vector<double> embed(const EmbedShape& shape, const float* inputs, const float* weights);

/** Mean discounted payoff of paths [0, paths) summed in float64 (no fixed point). */
double montecarlo(const OptionParams& option, std::uint64_t seed, std::int64_t paths);

/** max_i |got_i − want_i| / max(max_i |want_i|, tiny): the error measure of the selftest. */
template <typename T>
double relative_error(const std::vector<T>& got, const std::vector<double>& want);

}  // namespace shardrun::kernels::reference
