// shwa/core/series.hpp — a boundary value that may vary in time (tidal stage, river discharge,
// spill concentration): piecewise linear between samples, constant beyond the first and last.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace shwa {

class Series {
 public:
  Series() = default;
  /// A constant value.
  explicit Series(double value) : t_{0.0}, v_{value} {}
  /// Samples (t_k, v_k), t strictly increasing, at least one.
  Series(std::vector<double> t, std::vector<double> v) : t_(std::move(t)), v_(std::move(v)) {
    if (t_.empty() || t_.size() != v_.size())
      throw std::invalid_argument("time series needs as many values as times, and at least one");
    for (std::size_t k = 1; k < t_.size(); ++k)
      if (!(t_[k] > t_[k - 1]))
        throw std::invalid_argument("time series times must increase strictly (sample " +
                                    std::to_string(k) + ")");
  }
  bool empty() const { return t_.empty(); }
  double operator()(double t) const {
    if (t_.empty()) return 0.0;
    if (t <= t_.front()) return v_.front();
    if (t >= t_.back()) return v_.back();
    std::size_t lo = 0, hi = t_.size() - 1;
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      (t_[mid] <= t ? lo : hi) = mid;
    }
    const double s = (t - t_[lo]) / (t_[hi] - t_[lo]);
    return v_[lo] + s * (v_[hi] - v_[lo]);
  }

 private:
  std::vector<double> t_, v_;
};

}  // namespace shwa
