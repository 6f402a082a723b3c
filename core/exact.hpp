// Exact reference solutions of the shallow-water equations, for the tests and the
// convergence studies of docs/method.md section 9. Plain host C++17 in double precision.
//
// Conventions of shwa: g is passed explicitly; H(x, y) is the depth of the bottom below a
// fixed reference level (positive down) and the free surface is eta = h - H.
#pragma once

#include <cstddef>

namespace shwa::exact {

// 1D dam break on a wet bed (Stoker 1957, "Water Waves", ch. 10; also SWASHES, Delestre et al.
// 2013, section 4.1.1): flat bottom, water at rest on both sides of a dam at x0 removed at t = 0,
// h = h_left for x < x0 and h = h_right for x >= x0, 0 < h_right < h_left.
// The solution is a rarefaction fan moving left, a constant middle state (h_m, u_m) and a shock
// moving right.
class Stoker {
public:
    // Throws std::invalid_argument unless h_left > h_right > 0 and g > 0.
    Stoker(double h_left, double h_right, double g = 9.81);

    double h_left() const { return h_l_; }
    double h_right() const { return h_r_; }
    double g() const { return g_; }
    double h_middle() const { return h_m_; }
    double u_middle() const { return u_m_; }
    double shock_speed() const { return s_; }

    // Depth and velocity at (x, t) for a dam at x0. At t == 0 the initial step (x < x0 is the
    // left state). Throws std::invalid_argument for t < 0.
    void eval(double x, double t, double x0, double& h, double& u) const;

private:
    double h_l_, h_r_, g_;
    double h_m_, u_m_, s_;
};

// 1D dam break on a dry bed (Ritter 1892; SWASHES section 4.1.2): h = h_left for x < x0, dry
// for x >= x0, flat bottom, no friction. A single rarefaction fan reaching the dry bed.
class Ritter {
public:
    // Throws std::invalid_argument unless h_left > 0 and g > 0.
    explicit Ritter(double h_left, double g = 9.81);

    double h_left() const { return h_l_; }
    double g() const { return g_; }

    // Depth and velocity at (x, t) for a dam at x0 (u = 0 where dry). At t == 0 the initial
    // step. Throws std::invalid_argument for t < 0.
    void eval(double x, double t, double x0, double& h, double& u) const;

    // Wet/dry front: x0 + 2 sqrt(g h_left) t.
    double front_position(double t, double x0) const;

private:
    double h_l_, g_;
};

// Thacker's planar surface oscillating in a paraboloid (Thacker 1981, J. Fluid Mech. 107;
// SWASHES section 4.2.2 "Planar surface in a paraboloid"), on the square [0, L] x [0, L].
// Bottom depth H = h0 (1 - r^2 / a^2), r the distance to the centre (L/2, L/2); the free surface
// stays a plane, the velocity is uniform and rotates, and the wet region is a disk of radius a
// whose centre circles the paraboloid's axis at distance eta (the moving wet/dry front).
class ThackerPlanar {
public:
    // Throws std::invalid_argument unless L, a, h0, g > 0, eta >= 0 and the wet disk stays in the
    // domain (eta + a <= L / 2).
    ThackerPlanar(double L, double a, double h0, double eta, double g = 9.81);

    double omega() const { return omega_; }    // sqrt(2 g h0) / a
    double period() const;                     // 2 pi / omega
    double volume() const;                     // pi h0 a^2 / 2, constant in time

    // H(x, y) = h0 (1 - r^2 / a^2), positive down; the bottom elevation is -H.
    double bottom_depth(double x, double y) const;

    // Depth (clipped at 0) and velocity; u = v = 0 where h == 0.
    void eval(double x, double y, double t, double& h, double& u, double& v) const;

private:
    double L_, a_, h0_, eta_, g_, omega_;
};

// Discrete error norms of numeric - exact over n cells of area cell_area (a length in 1D):
//   l1 = sum |d| * cell_area,  l2 = sqrt(sum d^2 * cell_area),  linf = max |d|.
struct Norms {
    double l1, l2, linf;
};

// Throws std::invalid_argument unless cell_area > 0.
Norms error_norms(const double* numeric, const double* exact, std::size_t n, double cell_area);

}  // namespace shwa::exact
