#include "kernels/reference/reference.hpp"

#include <algorithm>
#include <cmath>

namespace shardrun::kernels::reference {

template <typename T>
double relative_error(const std::vector<T>& got, const std::vector<double>& want)
{
    if (got.size() != want.size()) return INFINITY;
    double scale = 1e-300, worst = 0.0;
    for (const double w : want) scale = std::max(scale, std::abs(w));
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double diff = std::abs(static_cast<double>(got[i]) - want[i]);
        if (!(diff <= worst)) worst = diff;  // NaN propagates as the worst
    }
    return worst / scale;
}

template double relative_error(const std::vector<float>&, const std::vector<double>&);
template double relative_error(const std::vector<double>&, const std::vector<double>&);

}  // namespace shardrun::kernels::reference
