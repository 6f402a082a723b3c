#include "exact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace shwa::exact {

namespace {

constexpr double pi = 3.14159265358979323846;

void require(bool ok, const std::string& message) {
    if (!ok) throw std::invalid_argument(message);
}

void require_time(double t, const char* who) {
    require(t >= 0.0, std::string(who) + "::eval: t must be >= 0, got " + std::to_string(t));
}

// Stoker's middle state. Across the left-moving rarefaction the Riemann invariant u + 2c is
// constant (c = sqrt(g h)), so u_m = 2 (c_l - c_m). Across the right-moving shock into water at
// rest, eliminating the shock speed from the Rankine-Hugoniot conditions for mass and momentum
// gives u_m = (h_m - h_r) sqrt(g/2 (1/h_m + 1/h_r)) (Toro, "Shock-Capturing Methods for
// Free-Surface Shallow Flows", 2001, ch. 5). The middle depth is the root of
//   f(h) = 2 (c_l - sqrt(g h)) - (h - h_r) sqrt(g/2 (1/h + 1/h_r)),
// which is strictly decreasing on [h_r, h_l] with f(h_r) > 0 > f(h_l): one root, bracketed.
struct StokerFunction {
    double h_l, h_r, g;

    double k(double h) const { return std::sqrt(0.5 * g * (1.0 / h + 1.0 / h_r)); }
    double value(double h) const {
        return 2.0 * (std::sqrt(g * h_l) - std::sqrt(g * h)) - (h - h_r) * k(h);
    }
    double derivative(double h) const {
        const double kh = k(h);
        return -std::sqrt(g / h) - kh + g * (h - h_r) / (4.0 * h * h * kh);
    }
};

// Newton's method kept inside a shrinking bracket [lo, hi] with f(lo) > 0 > f(hi); a step that
// would leave the bracket is replaced by bisection. Stops when the step is ~ 1e-15 relative.
double solve_stoker_depth(const StokerFunction& f) {
    constexpr double tol = 4.0 * std::numeric_limits<double>::epsilon();
    double lo = f.h_r, hi = f.h_l;
    double x = 0.5 * (lo + hi);
    for (int it = 0; it < 200; ++it) {
        const double fx = f.value(x);
        if (fx == 0.0) return x;
        if (fx > 0.0) lo = x; else hi = x;
        double next = x - fx / f.derivative(x);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        const bool converged = std::abs(next - x) <= tol * x || hi - lo <= tol * hi;
        x = next;
        if (converged) return x;
    }
    throw std::runtime_error("shwa::exact::Stoker: the middle-state iteration did not converge");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Stoker

Stoker::Stoker(double h_left, double h_right, double g) : h_l_(h_left), h_r_(h_right), g_(g) {
    require(g > 0.0, "Stoker: g must be > 0, got " + std::to_string(g));
    require(h_right > 0.0, "Stoker: h_right must be > 0 (use Ritter for a dry bed), got " +
                               std::to_string(h_right));
    require(h_left > h_right, "Stoker: h_left must exceed h_right, got h_left = " +
                                  std::to_string(h_left) + ", h_right = " + std::to_string(h_right));
    h_m_ = solve_stoker_depth(StokerFunction{h_l_, h_r_, g_});
    u_m_ = 2.0 * (std::sqrt(g_ * h_l_) - std::sqrt(g_ * h_m_));
    // Rankine-Hugoniot for mass with the right state at rest, s (h_m - h_r) = h_m u_m, with the
    // shock relation for u_m above: s = h_m sqrt(g/2 (1/h_m + 1/h_r)). This form does not lose
    // digits to cancellation when h_m is close to h_r (a weak shock).
    s_ = h_m_ * StokerFunction{h_l_, h_r_, g_}.k(h_m_);
}

void Stoker::eval(double x, double t, double x0, double& h, double& u) const {
    require_time(t, "Stoker");
    if (t == 0.0) {
        h = x < x0 ? h_l_ : h_r_;
        u = 0.0;
        return;
    }
    // Self-similar in xi = (x - x0) / t. Inside the fan the characteristic u - c has slope xi
    // and u + 2c = 2 c_l, so c = (2 c_l - xi) / 3 and u = 2 (xi + c_l) / 3.
    const double xi = (x - x0) / t;
    const double c_l = std::sqrt(g_ * h_l_);
    const double fan_tail = u_m_ - std::sqrt(g_ * h_m_);
    if (xi <= -c_l) {
        h = h_l_;
        u = 0.0;
    } else if (xi < fan_tail) {
        const double c = (2.0 * c_l - xi) / 3.0;
        h = c * c / g_;
        u = 2.0 * (xi + c_l) / 3.0;
    } else if (xi < s_) {
        h = h_m_;
        u = u_m_;
    } else {
        h = h_r_;
        u = 0.0;
    }
}

// ---------------------------------------------------------------------------------------------
// Ritter

Ritter::Ritter(double h_left, double g) : h_l_(h_left), g_(g) {
    require(g > 0.0, "Ritter: g must be > 0, got " + std::to_string(g));
    require(h_left > 0.0, "Ritter: h_left must be > 0, got " + std::to_string(h_left));
}

void Ritter::eval(double x, double t, double x0, double& h, double& u) const {
    require_time(t, "Ritter");
    if (t == 0.0) {
        h = x < x0 ? h_l_ : 0.0;
        u = 0.0;
        return;
    }
    // The Stoker fan with no middle state: it reaches h = 0 where xi = 2 c_l.
    const double xi = (x - x0) / t;
    const double c_l = std::sqrt(g_ * h_l_);
    if (xi <= -c_l) {
        h = h_l_;
        u = 0.0;
    } else if (xi < 2.0 * c_l) {
        const double c = (2.0 * c_l - xi) / 3.0;
        h = c * c / g_;
        u = 2.0 * (xi + c_l) / 3.0;
    } else {
        h = 0.0;
        u = 0.0;
    }
}

double Ritter::front_position(double t, double x0) const {
    return x0 + 2.0 * std::sqrt(g_ * h_l_) * t;
}

// ---------------------------------------------------------------------------------------------
// Thacker, planar surface in a paraboloid
//
// With X = x - L/2, Y = y - L/2 and the uniform velocity
//   u = -eta omega sin(omega t),  v = eta omega cos(omega t),  omega = sqrt(2 g h0) / a,
// the free surface is the plane
//   h - H = eta h0 / a^2 (2 X cos(omega t) + 2 Y sin(omega t) - eta).
// Derivation: for a plane surface and a uniform velocity, momentum reduces to du/dt = -g d(h-H)/dx
// (and likewise for v), continuity to dh/dt + u dh/dx + v dh/dy = 0; matching the coefficients
// of X, Y and 1 gives u'' = -(2 g h0 / a^2) u and a constant term that stays constant. Adding H
// gives h = h0 / a^2 (a^2 - (X - eta cos)^2 - (Y - eta sin)^2): a wet disk of radius a centred at
// (eta cos(omega t), eta sin(omega t)) holding pi h0 a^2 / 2 of water.

ThackerPlanar::ThackerPlanar(double L, double a, double h0, double eta, double g)
    : L_(L), a_(a), h0_(h0), eta_(eta), g_(g) {
    require(L > 0.0, "ThackerPlanar: L must be > 0, got " + std::to_string(L));
    require(a > 0.0, "ThackerPlanar: a must be > 0, got " + std::to_string(a));
    require(h0 > 0.0, "ThackerPlanar: h0 must be > 0, got " + std::to_string(h0));
    require(eta >= 0.0, "ThackerPlanar: eta must be >= 0, got " + std::to_string(eta));
    require(g > 0.0, "ThackerPlanar: g must be > 0, got " + std::to_string(g));
    require(eta + a <= 0.5 * L, "ThackerPlanar: the wet disk leaves the domain (eta + a > L/2)");
    omega_ = std::sqrt(2.0 * g_ * h0_) / a_;
}

double ThackerPlanar::period() const { return 2.0 * pi / omega_; }

double ThackerPlanar::volume() const { return 0.5 * pi * h0_ * a_ * a_; }

double ThackerPlanar::bottom_depth(double x, double y) const {
    const double X = x - 0.5 * L_, Y = y - 0.5 * L_;
    return h0_ * (1.0 - (X * X + Y * Y) / (a_ * a_));
}

void ThackerPlanar::eval(double x, double y, double t, double& h, double& u, double& v) const {
    const double X = x - 0.5 * L_, Y = y - 0.5 * L_;
    const double cs = std::cos(omega_ * t), sn = std::sin(omega_ * t);
    const double surface = eta_ * h0_ / (a_ * a_) * (2.0 * X * cs + 2.0 * Y * sn - eta_);
    h = std::max(0.0, surface + bottom_depth(x, y));
    if (h > 0.0) {
        u = -eta_ * omega_ * sn;
        v = eta_ * omega_ * cs;
    } else {
        u = 0.0;
        v = 0.0;
    }
}

// ---------------------------------------------------------------------------------------------
// Norms

Norms error_norms(const double* numeric, const double* exact, std::size_t n, double cell_area) {
    require(cell_area > 0.0, "error_norms: cell_area must be > 0, got " + std::to_string(cell_area));
    double sum_abs = 0.0, sum_sq = 0.0, max_abs = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double d = std::abs(numeric[i] - exact[i]);
        sum_abs += d;
        sum_sq += d * d;
        if (std::isnan(d) || d > max_abs) max_abs = d;  // a NaN sticks
    }
    return Norms{sum_abs * cell_area, std::sqrt(sum_sq * cell_area), max_abs};
}

}  // namespace shwa::exact
