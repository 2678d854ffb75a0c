#pragma once

#include <vector>

/**
 * What every kernel must compute is a plain float64 loop, slow on purpose, declared in its header
 * (kernels/<name>/<name>.hpp, namespace reference) and defined beside its selftest cases in
 * kernels/<name>/<name>_check.cpp; the selftest and the tests compare the CPU and CUDA kernels
 * against them on small inputs. Here: the error measure they share.
 */
namespace shardrun::kernels::reference {

/** max_i |got_i − want_i| / max(max_i |want_i|, tiny): the error measure of the selftest. */
template <typename T>
double relative_error(const std::vector<T>& got, const std::vector<double>& want);

}  // namespace shardrun::kernels::reference
