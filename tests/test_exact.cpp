// Tests of the exact reference solutions (core/exact.hpp): each checks a property that the
// solution must have, derived independently of the formulas used in core/exact.cpp.
#include "exact.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

using namespace shwa::exact;

namespace {

constexpr double g = 9.81;
constexpr double pi = 3.14159265358979323846;

double rel_diff(double a, double b) { return std::abs(a - b) / std::max(std::abs(a), std::abs(b)); }

// Midpoint rule of f over [a, b] with n cells.
template <class F>
double integrate(F f, double a, double b, long n) {
    const double dx = (b - a) / static_cast<double>(n);
    double sum = 0.0;
    for (long i = 0; i < n; ++i) sum += f(a + (static_cast<double>(i) + 0.5) * dx);
    return sum * dx;
}

// Stoker's middle state by a different route: bisection on the shock speed s. For a shock moving
// at s into still water of depth h_r, mass and momentum conservation give the hydraulic-jump
// relation h_m / h_r = (sqrt(1 + 8 s^2 / (g h_r)) - 1) / 2 and u_m = s (1 - h_r / h_m); the
// middle state must also lie on the rarefaction curve, u_m + 2 sqrt(g h_m) = 2 sqrt(g h_l).
struct ShockSpeedReference {
    double h_m, u_m, s;
};

ShockSpeedReference stoker_by_shock_speed(double h_l, double h_r) {
    auto state = [&](double s, double& h_m, double& u_m) {
        h_m = 0.5 * h_r * (std::sqrt(1.0 + 8.0 * s * s / (g * h_r)) - 1.0);
        u_m = s * (1.0 - h_r / h_m);
    };
    auto residual = [&](double s) {
        double h_m, u_m;
        state(s, h_m, u_m);
        return u_m + 2.0 * std::sqrt(g * h_m) - 2.0 * std::sqrt(g * h_l);
    };
    double lo = std::sqrt(g * h_r);  // residual < 0 there (h_m = h_r, u_m = 0)
    double hi = 2.0 * lo;
    while (residual(hi) < 0.0) hi *= 2.0;
    for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        (residual(mid) < 0.0 ? lo : hi) = mid;
    }
    ShockSpeedReference ref{};
    ref.s = 0.5 * (lo + hi);
    state(ref.s, ref.h_m, ref.u_m);
    return ref;
}

}  // namespace

// -------------------------------------------------------------------------------------------
// Stoker

TEST_CASE("Stoker middle state satisfies Rankine-Hugoniot and the Riemann invariant", "[exact]") {
    const double cases[][2] = {{1.0, 0.5}, {1.0, 0.1}, {0.005, 0.001}, {10.0, 1e-4}, {2.0, 1.999}};
    for (const auto& c : cases) {
        const double h_l = c[0], h_r = c[1];
        CAPTURE(h_l, h_r);
        const Stoker st(h_l, h_r, g);
        const double h_m = st.h_middle(), u_m = st.u_middle(), s = st.shock_speed();
        REQUIRE(h_m > h_r);
        REQUIRE(h_m < h_l);
        REQUIRE(u_m > 0.0);

        // Mass across the shock (right state at rest): s (h_m - h_r) = h_m u_m.
        CHECK(rel_diff(s * (h_m - h_r), h_m * u_m) < 1e-10);
        // Momentum across the shock: s h_m u_m = h_m u_m^2 + g (h_m^2 - h_r^2) / 2.
        CHECK(rel_diff(s * h_m * u_m, h_m * u_m * u_m + 0.5 * g * (h_m * h_m - h_r * h_r)) < 1e-10);
        // Left Riemann invariant carried through the rarefaction from the still left state.
        CHECK(rel_diff(u_m + 2.0 * std::sqrt(g * h_m), 2.0 * std::sqrt(g * h_l)) < 1e-13);
        // Lax entropy condition for the right-moving shock.
        CHECK(s > std::sqrt(g * h_r));
        CHECK(s < u_m + std::sqrt(g * h_m));
    }
}

TEST_CASE("Stoker reference case h_l = 1, h_r = 0.5 matches bisection on the shock speed", "[exact]") {
    const Stoker st(1.0, 0.5, g);
    const ShockSpeedReference ref = stoker_by_shock_speed(1.0, 0.5);
    CHECK(rel_diff(st.h_middle(), ref.h_m) < 1e-12);
    CHECK(rel_diff(st.u_middle(), ref.u_m) < 1e-12);
    CHECK(rel_diff(st.shock_speed(), ref.s) < 1e-12);
}

TEST_CASE("Stoker profile is monotone, continuous through the fan and covers all regions", "[exact]") {
    const double h_l = 1.0, h_r = 0.5, x0 = 3.0, t = 0.7;
    const Stoker st(h_l, h_r, g);
    const double c_l = std::sqrt(g * h_l);
    const double x_min = x0 - 2.0 * c_l * t, x_max = x0 + 2.0 * st.shock_speed() * t;

    const int n = 20001;
    double h_prev = std::numeric_limits<double>::infinity();
    int n_left = 0, n_fan = 0, n_middle = 0, n_right = 0;
    for (int i = 0; i < n; ++i) {
        const double x = x_min + (x_max - x_min) * i / (n - 1);
        double h, u;
        st.eval(x, t, x0, h, u);
        REQUIRE(h <= h_prev);
        REQUIRE(u >= 0.0);
        h_prev = h;
        if (h == h_l) ++n_left;
        else if (h == st.h_middle()) ++n_middle;
        else if (h == h_r) ++n_right;
        else if (h > st.h_middle() && h < h_l) ++n_fan;
    }
    CHECK(n_left > 0);
    CHECK(n_fan > 0);
    CHECK(n_middle > 0);
    CHECK(n_right > 0);
    CHECK(n_left + n_fan + n_middle + n_right == n);

    // h and u continuous at the head (xi = -c_l) and the tail (xi = u_m - c_m) of the fan.
    const double tail = st.u_middle() - std::sqrt(g * st.h_middle());
    for (double xi : {-c_l, tail}) {
        CAPTURE(xi);
        const double eps = 1e-9;
        double h_a, u_a, h_b, u_b;
        st.eval(x0 + (xi - eps) * t, t, x0, h_a, u_a);
        st.eval(x0 + (xi + eps) * t, t, x0, h_b, u_b);
        CHECK(std::abs(h_a - h_b) < 1e-8);
        CHECK(std::abs(u_a - u_b) < 1e-8);
    }
    // The shock is a jump from h_m to h_r.
    double h_a, u_a, h_b, u_b;
    st.eval(x0 + st.shock_speed() * t - 1e-9, t, x0, h_a, u_a);
    st.eval(x0 + st.shock_speed() * t + 1e-9, t, x0, h_b, u_b);
    CHECK(h_a == st.h_middle());
    CHECK(u_a == st.u_middle());
    CHECK(h_b == h_r);
    CHECK(u_b == 0.0);
}

TEST_CASE("Stoker conserves mass on a domain the waves have not left", "[exact]") {
    const double h_l = 1.0, h_r = 0.5, x0 = 0.0, half = 10.0, t = 1.5;
    const Stoker st(h_l, h_r, g);
    REQUIRE(st.shock_speed() * t < half);
    REQUIRE(std::sqrt(g * h_l) * t < half);
    const double mass = integrate(
        [&](double x) {
            double h, u;
            st.eval(x, t, x0, h, u);
            return h;
        },
        x0 - half, x0 + half, 2000000);
    // Midpoint error is dominated by the one cell cut by the shock: <= dx (h_m - h_r).
    CHECK(rel_diff(mass, (h_l + h_r) * half) < 1e-6);
}

TEST_CASE("Stoker initial step, argument checks", "[exact]") {
    const Stoker st(2.0, 1.0, g);
    double h, u;
    st.eval(-1e-12, 0.0, 0.0, h, u);
    CHECK(h == 2.0);
    CHECK(u == 0.0);
    st.eval(0.0, 0.0, 0.0, h, u);
    CHECK(h == 1.0);
    CHECK(u == 0.0);
    CHECK_THROWS_AS(st.eval(0.0, -1.0, 0.0, h, u), std::invalid_argument);
    CHECK_THROWS_AS(Stoker(1.0, 1.0, g), std::invalid_argument);
    CHECK_THROWS_AS(Stoker(0.5, 1.0, g), std::invalid_argument);
    CHECK_THROWS_AS(Stoker(1.0, 0.0, g), std::invalid_argument);
    CHECK_THROWS_AS(Stoker(1.0, 0.5, 0.0), std::invalid_argument);
}

// -------------------------------------------------------------------------------------------
// Ritter

TEST_CASE("Ritter conserves the volume of a finite reservoir", "[exact]") {
    // Reservoir [x0 - R, x0] with a wall at x0 - R: exact as long as the fan head (speed
    // -c_l) has not reached the wall, i.e. c_l t < R.
    const double h_l = 0.8, x0 = 2.0, R = 10.0;
    const Ritter r(h_l, g);
    for (double t : {0.3, 1.0, 3.0}) {
        CAPTURE(t);
        REQUIRE(std::sqrt(g * h_l) * t < R);
        const double volume = integrate(
            [&](double x) {
                double h, u;
                r.eval(x, t, x0, h, u);
                return h;
            },
            x0 - R, r.front_position(t, x0) + 1.0, 1000000);
        CHECK(rel_diff(volume, h_l * R) < 1e-9);
    }
}

TEST_CASE("Ritter front position and the fan at the dam site", "[exact]") {
    const double h_l = 0.8, x0 = -1.0, t = 2.0;
    const Ritter r(h_l, g);
    const double c_l = std::sqrt(g * h_l);
    CHECK(r.front_position(t, x0) == Approx(x0 + 2.0 * c_l * t).epsilon(1e-15));
    CHECK(r.front_position(0.0, x0) == x0);

    double h, u;
    const double front = r.front_position(t, x0);
    r.eval(front - 1e-6, t, x0, h, u);
    CHECK(h > 0.0);
    CHECK(h < 1e-12);
    CHECK(u == Approx(2.0 * c_l).epsilon(1e-6));
    r.eval(front + 1e-6, t, x0, h, u);
    CHECK(h == 0.0);
    CHECK(u == 0.0);

    // At the dam site the state is critical and constant in time: h = 4/9 h_l, u = 2/3 c_l.
    for (double tt : {0.1, 1.0, 5.0}) {
        r.eval(x0, tt, x0, h, u);
        CHECK(h == Approx(4.0 / 9.0 * h_l).epsilon(1e-14));
        CHECK(u == Approx(2.0 / 3.0 * c_l).epsilon(1e-14));
        CHECK(u == Approx(std::sqrt(g * h)).epsilon(1e-14));
    }
    // Undisturbed upstream of the fan head.
    r.eval(x0 - c_l * t - 1e-6, t, x0, h, u);
    CHECK(h == h_l);
    CHECK(u == 0.0);

    r.eval(x0 - 1e-12, 0.0, x0, h, u);
    CHECK(h == h_l);
    r.eval(x0, 0.0, x0, h, u);
    CHECK(h == 0.0);
    CHECK_THROWS_AS(r.eval(0.0, -1.0, 0.0, h, u), std::invalid_argument);
    CHECK_THROWS_AS(Ritter(0.0, g), std::invalid_argument);
}

// -------------------------------------------------------------------------------------------
// Thacker, planar surface in a paraboloid (SWASHES parameters: L = 4, a = 1, h0 = 0.1, eta = 0.5)

namespace {

const ThackerPlanar thacker(4.0, 1.0, 0.1, 0.5, g);

double thacker_h(double x, double y, double t) {
    double h, u, v;
    thacker.eval(x, y, t, h, u, v);
    return h;
}

}  // namespace

TEST_CASE("Thacker satisfies the shallow-water equations at interior wet points", "[exact]") {
    // Centred finite differences; every stencil point is wet (h > 0.02 at the centre, and h
    // varies by less than 1e-4 over one spacing).
    const double dx = 1e-4, dt = 1e-4;
    int n_checked = 0;
    for (double t : {0.0, 0.37, 1.1, 2.9, 4.0}) {
        for (double x = 0.55; x < 4.0; x += 0.3) {
            for (double y = 0.55; y < 4.0; y += 0.3) {
                double h, u, v;
                thacker.eval(x, y, t, h, u, v);
                if (h < 0.02) continue;
                CAPTURE(x, y, t);
                ++n_checked;
                auto state = [&](double xx, double yy, double tt, double& hh, double& qx, double& qy) {
                    double uu, vv;
                    thacker.eval(xx, yy, tt, hh, uu, vv);
                    qx = hh * uu;
                    qy = hh * vv;
                };
                double h_tp, qx_tp, qy_tp, h_tm, qx_tm, qy_tm;
                double h_xp, qx_xp, qy_xp, h_xm, qx_xm, qy_xm;
                double h_yp, qx_yp, qy_yp, h_ym, qx_ym, qy_ym;
                state(x, y, t + dt, h_tp, qx_tp, qy_tp);
                state(x, y, t - dt, h_tm, qx_tm, qy_tm);
                state(x + dx, y, t, h_xp, qx_xp, qy_xp);
                state(x - dx, y, t, h_xm, qx_xm, qy_xm);
                state(x, y + dx, t, h_yp, qx_yp, qy_yp);
                state(x, y - dx, t, h_ym, qx_ym, qy_ym);
                auto d_t = [&](double p, double m) { return (p - m) / (2.0 * dt); };
                auto d_s = [&](double p, double m) { return (p - m) / (2.0 * dx); };

                // d_t h + d_x (h u) + d_y (h v) = 0
                const double continuity = d_t(h_tp, h_tm) + d_s(qx_xp, qx_xm) + d_s(qy_yp, qy_ym);
                CHECK(std::abs(continuity) < 1e-8);

                // d_t q + div(flux) = g h grad H   (docs/method.md section 1, H positive down)
                auto flux_xx = [&](double hh, double qx) { return qx * qx / hh + 0.5 * g * hh * hh; };
                auto flux_xy = [&](double hh, double qx, double qy) { return qx * qy / hh; };
                const double dH_dx = d_s(thacker.bottom_depth(x + dx, y), thacker.bottom_depth(x - dx, y));
                const double dH_dy = d_s(thacker.bottom_depth(x, y + dx), thacker.bottom_depth(x, y - dx));
                const double momentum_x = d_t(qx_tp, qx_tm) +
                                          d_s(flux_xx(h_xp, qx_xp), flux_xx(h_xm, qx_xm)) +
                                          d_s(flux_xy(h_yp, qx_yp, qy_yp), flux_xy(h_ym, qx_ym, qy_ym)) -
                                          g * h * dH_dx;
                const double momentum_y = d_t(qy_tp, qy_tm) +
                                          d_s(flux_xy(h_xp, qx_xp, qy_xp), flux_xy(h_xm, qx_xm, qy_xm)) +
                                          d_s(flux_xx(h_yp, qy_yp), flux_xx(h_ym, qy_ym)) -
                                          g * h * dH_dy;
                CHECK(std::abs(momentum_x) < 1e-7);
                CHECK(std::abs(momentum_y) < 1e-7);
            }
        }
    }
    CHECK(n_checked > 50);
}

TEST_CASE("Thacker is periodic and its wet/dry front moves", "[exact]") {
    const double T = thacker.period();
    CHECK(T == Approx(2.0 * pi / thacker.omega()).epsilon(1e-15));
    CHECK(thacker.omega() == Approx(std::sqrt(2.0 * g * 0.1) / 1.0).epsilon(1e-15));
    double max_change_half_period = 0.0;
    for (double t : {0.0, 0.8, 2.3}) {
        for (double x = 0.05; x < 4.0; x += 0.1) {
            for (double y = 0.05; y < 4.0; y += 0.1) {
                double h0, u0, v0, h1, u1, v1, h2, u2, v2;
                thacker.eval(x, y, t, h0, u0, v0);
                thacker.eval(x, y, t + T, h1, u1, v1);
                thacker.eval(x, y, t + 0.5 * T, h2, u2, v2);
                CHECK(std::abs(h1 - h0) < 1e-12);
                CHECK(std::abs(u1 - u0) < 1e-12);
                CHECK(std::abs(v1 - v0) < 1e-12);
                max_change_half_period = std::max(max_change_half_period, std::abs(h2 - h0));
            }
        }
    }
    CHECK(max_change_half_period > 0.05);

    // At t = 0 the wet disk (radius a = 1) is centred at (L/2 + eta, L/2) = (2.5, 2).
    double h, u, v;
    thacker.eval(2.5 + 0.99, 2.0, 0.0, h, u, v);
    CHECK(h > 0.0);
    CHECK(v != 0.0);
    thacker.eval(2.5 - 1.01, 2.0, 0.0, h, u, v);
    CHECK(h == 0.0);
    CHECK(u == 0.0);
    CHECK(v == 0.0);
    // A quarter period later it is centred at (2, 2.5).
    thacker.eval(2.0, 2.5 + 0.99, 0.25 * T, h, u, v);
    CHECK(h > 0.0);
    thacker.eval(2.0, 2.5 - 1.01, 0.25 * T, h, u, v);
    CHECK(h == 0.0);
    // The bottom: H = h0 at the centre, 0 at r = a, negative (above the reference) beyond.
    CHECK(thacker.bottom_depth(2.0, 2.0) == Approx(0.1).epsilon(1e-15));
    CHECK(std::abs(thacker.bottom_depth(3.0, 2.0)) < 1e-15);
    CHECK(thacker.bottom_depth(0.0, 0.0) < 0.0);
}

TEST_CASE("Thacker keeps the water volume constant", "[exact]") {
    const int n = 1000;
    const double L = 4.0, dx = L / n;
    for (double t : {0.0, 0.5, 1.3, 3.7}) {
        CAPTURE(t);
        double volume = 0.0;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) volume += thacker_h((i + 0.5) * dx, (j + 0.5) * dx, t);
        volume *= dx * dx;
        CHECK(rel_diff(volume, thacker.volume()) < 1e-3);
        CHECK(rel_diff(volume, pi * 0.1 * 1.0 / 2.0) < 1e-3);
    }
}

TEST_CASE("Thacker argument checks", "[exact]") {
    CHECK_NOTHROW(ThackerPlanar(4.0, 1.0, 0.1, 1.0, g));
    CHECK_THROWS_AS(ThackerPlanar(4.0, 1.0, 0.1, 1.01, g), std::invalid_argument);
    CHECK_THROWS_AS(ThackerPlanar(4.0, 0.0, 0.1, 0.5, g), std::invalid_argument);
    CHECK_THROWS_AS(ThackerPlanar(4.0, 1.0, -0.1, 0.5, g), std::invalid_argument);
    CHECK_THROWS_AS(ThackerPlanar(4.0, 1.0, 0.1, -0.5, g), std::invalid_argument);
}

// -------------------------------------------------------------------------------------------
// Norms

TEST_CASE("error_norms", "[exact]") {
    const std::vector<double> numeric = {1.0, 2.0, 3.0, 4.0};
    const std::vector<double> exact = {1.5, 2.0, 1.0, 4.0};  // |d| = 0.5, 0, 2, 0
    const Norms e = error_norms(numeric.data(), exact.data(), numeric.size(), 0.25);
    CHECK(e.l1 == Approx(2.5 * 0.25).epsilon(1e-15));
    CHECK(e.l2 == Approx(std::sqrt(4.25 * 0.25)).epsilon(1e-15));
    CHECK(e.linf == 2.0);

    const Norms zero = error_norms(exact.data(), exact.data(), exact.size(), 1.0);
    CHECK(zero.l1 == 0.0);
    CHECK(zero.l2 == 0.0);
    CHECK(zero.linf == 0.0);

    std::vector<double> bad = numeric;
    bad[1] = std::numeric_limits<double>::quiet_NaN();
    const Norms nan = error_norms(bad.data(), exact.data(), bad.size(), 1.0);
    CHECK(std::isnan(nan.l1));
    CHECK(std::isnan(nan.linf));

    CHECK_THROWS_AS(error_norms(numeric.data(), exact.data(), numeric.size(), 0.0), std::invalid_argument);
}
