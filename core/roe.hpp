// shwa/core/roe.hpp — the Roe Riemann solver of one edge, for the 2D shallow-water equations with a
// passive pollutant, upwinded bathymetry and wet/dry fronts.
//
// Method: the first-order Roe scheme of Castro, García-Rodríguez, González-Vida and Parés (JCAM 221,
// 2008) as used by Viñas et al. (CCPE 25(8), 2013), written in flux-difference form: the jump
//     B = F_n(W_R) - F_n(W_L) - S (H_R - H_L),   S = (0, g h~ n, 0)
// is projected on the Roe eigenvectors and split by the sign of the eigenvalues into D- (to the
// left cell) and D+ = B - D- (to the right cell). See docs/method.md section 2.
//
// Everything is done in the edge's frame: `un` is the velocity along the normal n (from L to R), `ut`
// the tangential one. For an x-edge (n = +x) un = u, ut = v; for a y-edge (n = +y) un = v, ut = u.
// The caller maps the frame back (its qn/qt are qx/qy or qy/qx).
//
// Choices the papers leave open (and what the tests check):
//  * Dry cells: h < eps_h. Their velocity is taken as 0 (a film's q / h means nothing). Their
//    concentration is hc / h all the same, where h is not too small to divide by: a film that
//    drains or is carried off takes its own pollutant with it. An edge between two dry cells
//    carries nothing.
//  * Wet/dry walls (docs/method.md section 4): if one side is dry and the wet side's free surface lies below
//    the dry cell's bottom, the dry side is replaced by the mirror image of the wet side (same h, H,
//    ut, c; opposite un), which makes the edge a wall for that Riemann problem, and the dry cell
//    gets no contribution (D = 0 on its side).
//  * Entropy fix: Harten-Hyman (1983) on the two acoustic fields (l1 = un~ - a~, l3 = un~ + a~).
//    When a field is transonic (lambda_L < 0 < lambda_R, lambda_K the field's eigenvalue in the
//    cell state K), its flux part lambda~ alpha r is split into a left-going part
//    lambda_L alpha (lambda_R - lambda~)/(lambda_R - lambda_L) r and the rest; the bathymetry part of
//    beta follows the sign of lambda~ as in the unfixed scheme. D+ = B - D- keeps the scheme
//    conservative whatever the fix does.
//  * A zero eigenvalue sends half of its wave each way (docs/method.md section 2).
//  * Pollutant: not the Roe projection on the fourth field, but upwinding by the edge's mass flux
//    F (after the outflow limit): the pollutant flux is F times the concentration of the cell the
//    water comes from. Then c^{n+1} of a cell is a convex combination of c^n of the cell and its
//    upwind neighbours whenever no cell sends out more water than it holds, which the outflow
//    limit guarantees for CFL <= 1/2 (docs/method-notes.md). (The Roe projection on the fourth
//    field would average cL and cR with the Roe weights and split by the sign of un~, not of F;
//    at wet/dry fronts, where these differ, that makes concentrations outside the initial range.)
//  * Well-balancing: the acoustic projections are written with the free-surface jump
//    d_eta = (h_R - H_R) - (h_L - H_L) so that a lake at rest gives B = 0 up to the rounding of eta.
#pragma once

#include "math.hpp"
#include "types.hpp"

#include <limits>

namespace shwa {

/// Cell values as the Roe solver sees them, in an edge's frame.
struct Prim {
  Real h;   // water depth
  Real H;   // bottom depth below the reference level (positive down)
  Real un;  // velocity along the edge normal
  Real ut;  // velocity along the edge
  Real c;   // concentration
  Real sh;  // sqrt(h)
};

/// One fluctuation (h, qn, qt, hc) in an edge's frame.
struct Fluct {
  Real h, qn, qt, hc;
};

/// Per-cell primitive values in the global frame, computed once per cell and shared by its edges.
struct CellPrim {
  Real h, H, u, v, c, sh;
};

/// What a tracer's fluctuations read of an edge's solution (roe_solve), the same for every tracer:
/// the mass fluctuations D-_h, D+_h before a dry side's are set to zero, the normal discharges of
/// the two sides, whether the mass flux leaves L, which side a wet/dry wall mirrors, and which
/// fluctuation is zero.
struct EdgeMass {
  Real mh, ph, qnL, qnR;
  bool from_left, wall_left, wall_right, zm, zp;
};

// Branch-free form. Every function below computes all of its cases and picks the result with
// `select` (a ternary between two values already computed, which compilers turn into a blend on SIMD
// lanes or a predicated move), instead of branching around the work. That lets the host sweeps of
// kernels_host.hpp vectorize a loop over a row of edges (`#pragma omp simd`), and gives every
// caller, host or device, one statement of the physics. The values picked are, operation for
// operation, the ones the branching form computed; conditions are combined with & and | (not the
// short-circuit && and ||, which are branches); a denominator of a case that is not picked is
// replaced by 1 (`safe_den`) so that no lane divides by zero.

/// Host compilers compute every case and select (kSelectAll), so that loops over edges vectorize;
/// GPU compilers branch around the rare cases (the entropy fix, the outflow limit), which whole
/// warps then skip. The same statements either way, so the same values.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
inline constexpr bool kSelectAll = false;
#else
inline constexpr bool kSelectAll = true;
#endif

/// c ? a : b, both already computed.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T select(bool c, T a, T b) {
  return c ? a : b;
}

/// d where `use` holds (the caller's case), else 1: a denominator that is never zero.
KOKKOS_FORCEINLINE_FUNCTION Real safe_den(bool use, Real d) { return use ? d : Real(1); }

/// 1 / h where a cell of depth h holds water (h >= kMinDepthForC; else 1), and sqrt(max(h, 0)).
/// With kPairedRoots (math.hpp) both come from one reciprocal square root r of h: 1 / h = r r,
/// sqrt(h) = h r, each product rounded on its own (mul_rn) so that no kernel fuses it differently.
struct DepthRoots {
  Real rh, sh;
};
KOKKOS_FORCEINLINE_FUNCTION DepthRoots depth_roots(Real h) {
  const bool holds = h >= kMinDepthForC;
  if constexpr (kPairedRoots) {
    const Real r = shwa::rsqrt(safe_den(holds, h));
    return {mul_rn(r, r), holds ? mul_rn(h, r) : shwa::sqrt_nonneg(shwa::max(h, Real(0)))};
  } else {
    return {Real(1) / safe_den(holds, h), shwa::sqrt_nonneg(shwa::max(h, Real(0)))};
  }
}

KOKKOS_FORCEINLINE_FUNCTION CellPrim make_cell_prim(Real h, Real qx, Real qy, Real hc, Real H,
                                                    Real eps_h) {
  const bool wet = h >= eps_h;
  const bool holds = h >= kMinDepthForC;  // wet implies holds (eps_h is far above it)
  const DepthRoots d = depth_roots(h);
  const Real rh = d.rh;
  CellPrim p;
  p.h = h;
  p.H = H;
  p.sh = d.sh;
  p.u = select(wet, qx * rh, Real(0));
  p.v = select(wet, qy * rh, Real(0));
  p.c = select(holds, mul_rn(hc, rh), Real(0));
  return p;
}

/// The concentration of a tracer of mass per area hc in a cell of depth h, as make_cell_prim
/// computes the one it carries (the same operations, so the same bits). A tracer's arithmetic,
/// here and below, is made of mul_rn, add_rn and sub_rn (math.hpp), which no compiler fuses into
/// FMAs: every tracer then gets the same bits from the same operands in any kernel, whether it is
/// the one roe_solve carries or another (tracer_fluct), and whatever the number of tracers.
KOKKOS_FORCEINLINE_FUNCTION Real concentration(Real h, Real hc) {
  const bool holds = h >= kMinDepthForC;
  return select(holds, mul_rn(hc, depth_roots(h).rh), Real(0));
}

/// The edge frame of a cell: direction 0 = x-edge (n = +x), 1 = y-edge (n = +y).
template <int Dir>
KOKKOS_FORCEINLINE_FUNCTION Prim edge_prim(const CellPrim& p) {
  if constexpr (Dir == 0) {
    return Prim{p.h, p.H, p.u, p.v, p.c, p.sh};
  } else {
    return Prim{p.h, p.H, p.v, p.u, p.c, p.sh};
  }
}

/// `use` ? the mirror image of `wet` (same h, H, ut, c, sqrt h; opposite un) : `self`, branch-free.
KOKKOS_FORCEINLINE_FUNCTION Prim mirror_if(bool use, const Prim& wet, const Prim& self) {
  return Prim{select(use, wet.h, self.h),   select(use, wet.H, self.H),
              select(use, -wet.un, self.un), select(use, wet.ut, self.ut),
              select(use, wet.c, self.c),   select(use, wet.sh, self.sh)};
}

/// How an edge is treated: between two dry cells (carries nothing), a wet/dry wall with the dry
/// cell on the right or on the left (that cell gets nothing), or a normal edge (none of these).
/// Classifies the edge and, for a wet/dry wall, replaces the dry side by the wet side's mirror.
/// The wet/dry rule of docs/method.md section 4 lives here and nowhere else. (Three bools by reference, not
/// a struct: GCC keeps a returned struct of bools in memory, which stops the vectorizer.)
KOKKOS_FORCEINLINE_FUNCTION void resolve_wet_dry(Prim& L, Prim& R, Real eps_h, bool& dry,
                                                 bool& wall_right, bool& wall_left) {
  const bool wetL = L.h >= eps_h;
  const bool wetR = R.h >= eps_h;
  dry = !wetL & !wetR;
  // L wet, R dry, free surface of L (h - H) below the bottom of R (elevation -H_R): R is a wall.
  wall_right = wetL & !wetR & (L.h - L.H < -R.H);
  wall_left = !wetL & wetR & (R.h - R.H < -L.H);
  const Prim l = L, r = R;
  R = mirror_if(wall_right, l, r);
  L = mirror_if(wall_left, r, l);
}

/// A tracer upwinded by an edge's mass flux F* = qnL + mh = qnR - ph (roe_solve): its fluctuations
/// m (to L) and p (to R) from the concentrations cL, cR of the two sides (after a wall's mirror),
/// every operation rounded on its own (mul_rn, add_rn, sub_rn: no FMA). Every tracer goes through
/// it, roe_solve's own and the others (tracer_fluct).
KOKKOS_FORCEINLINE_FUNCTION void upwind(bool from_left, Real mh, Real ph, Real qnL, Real qnR, Real cL,
                                        Real cR, Real& m, Real& p) {
  const Real dc = sub_rn(cR, cL);
  m = select(from_left, mul_rn(mh, cL), add_rn(mul_rn(mh, cR), mul_rn(qnL, dc)));
  p = select(from_left, add_rn(mul_rn(ph, cL), mul_rn(qnR, dc)), mul_rn(ph, cR));
}

/// Fraction of a wave with eigenvalue l that goes to the left cell: 1, 0, or 1/2 when l == 0.
KOKKOS_FORCEINLINE_FUNCTION Real left_share(Real l) {
  return select(l < Real(0), Real(1), select(l > Real(0), Real(0), Real(0.5)));
}

/// Solves the Roe problem of one edge between L and R (in the edge frame). Writes the fluctuation
/// D- that goes to L and D+ that goes to R. `sqrt_g` is sqrt(g).
///
/// Positivity: the mass flux through the edge, F* = qn_L + D-_h, is kept within what upwinding at
/// the edge's own wave-speed bound could carry, |F*| <= h_upwind (|un~| + a~). A physical flux h u
/// never exceeds it; the Roe linearisation does at wet/dry fronts over steep bathymetry (a thin film
/// on a slope next to a deep cell, or an empty cell whose bottom sits a little below a wet
/// neighbour's surface), where it would take more water out of a cell than the cell holds. Beyond
/// the bound, the interface fluxes seen from each side (F_L + D- and F_R - D+) are scaled down
/// together: mass and pollutant stay conservative and the momentum handed over shrinks with the
/// mass. With the CFL step (docs/method.md section 3) a cell then loses at most 2 CFL of its water in a step
/// (summing the bound over its edges gives dt Z_i h / (dx dy) <= 2 CFL h), so depths stay
/// non-negative for CFL <= 0.5; above that only a cell draining through all four edges at full
/// speed could go below zero, and the update counts any depth that does (update_cell, kernels.hpp).
///
/// Branch-free (see `select` above): every case is computed and the result picked, so a loop over
/// edges vectorizes. The values are those of the case that applies.
///
/// MaybeDry = false: the caller knows both cells are wet (h >= eps_h); the wet/dry classification
/// is then left out at compile time, and the values are the same as with it.
/// Rare = false: the entropy fix and the outflow limit are left out at compile time, and `rare` says
/// whether the edge needed either; where it did not, the values are those of the full solver. The
/// host sweeps solve a row so first (most rows of most flows need neither), and again with Rare
/// where an edge of the row did (kernels_host.hpp); the rare cases are about a quarter of the
/// branch-free solver's instructions.
/// `em`: what the edge's other tracers read (tracer_fluct).
template <bool MaybeDry, bool Rare>
KOKKOS_FORCEINLINE_FUNCTION void roe_solve(Prim L, Prim R, Real g, Real sqrt_g, Real eps_h,
                                           Fluct& dm, Fluct& dp, bool& rare, EdgeMass& em) {
  bool dry = false, wall_right = false, wall_left = false;
  if constexpr (MaybeDry) resolve_wet_dry(L, R, eps_h, dry, wall_right, wall_left);
  // Roe averages. Between two dry cells the denominators are replaced by 1 and the result by 0.
  const Real rs = reciprocal(safe_den(!dry, L.sh + R.sh));
  const Real un = (L.sh * L.un + R.sh * R.un) * rs;
  const Real ut = (L.sh * L.ut + R.sh * R.ut) * rs;
  const Real a2 = g * Real(0.5) * (L.h + R.h);
  // a and 1 / (2a): with kPairedRoots (math.hpp) from one reciprocal square root of a^2 (between two
  // dry cells, of 1: there a is a^2, and what reads it is zeroed below, zm and zp).
  Real a, r2a;
  if constexpr (kPairedRoots) {
    const Real ra = shwa::rsqrt(safe_den(!dry, a2));
    a = mul_rn(a2, ra);
    r2a = Real(0.5) * ra;
  } else {
    a = shwa::sqrt_nonneg(a2);
    r2a = Real(0.5) / safe_den(!dry, a);
  }
  const Real l1 = un - a;
  const Real l3 = un + a;

  // Jumps of the flux components.
  const Real qnL = L.h * L.un, qnR = R.h * R.un;
  const Real dh = R.h - L.h;
  const Real deta = (R.h - R.H) - (L.h - L.H);
  const Real dqn = qnR - qnL;
  const Real bt = qnR * R.ut - qnL * L.ut;

  // Projections of B on r1, r3 (acoustic) and r2 (shear); the pollutant is upwinded below. With
  // alpha the flat-bottom
  // state-jump strengths and s = a~ dH / 2 the bathymetry part:
  //   beta1 = l1 alpha1 + s = (un^2 dh - a^2 deta - (un - a) dqn) / (2a)
  //   beta3 = l3 alpha3 - s = ((un + a) dqn - un^2 dh + a^2 deta) / (2a)
  const Real un2dh = un * un * dh;
  const Real beta1 = (un2dh - a2 * deta - l1 * dqn) * r2a;
  const Real beta3 = (l3 * dqn - un2dh + a2 * deta) * r2a;
  const Real beta2 = bt - ut * dqn;

  // Harten-Hyman entropy fix on the acoustic fields, where the field is transonic.
  Real w1 = left_share(l1) * beta1, w3 = left_share(l3) * beta3;
  {
    const Real aL = sqrt_g * L.sh, aR = sqrt_g * R.sh;
    const Real l1L = L.un - aL, l1R = R.un - aR;
    const Real l3L = L.un + aL, l3R = R.un + aR;
    const bool fix1 = (l1L < Real(0)) & (l1R > Real(0));
    const bool fix3 = (l3L < Real(0)) & (l3R > Real(0));
    rare = fix1 | fix3;
    if (Rare && (kSelectAll | fix1)) {
      const Real alpha1 = ((un + a) * dh - dqn) * r2a;
      const Real s1 = beta1 - l1 * alpha1;  // bathymetry part of beta1
      w1 = select(fix1, l1L * (l1R - l1) / safe_den(fix1, l1R - l1L) * alpha1 + left_share(l1) * s1, w1);
    }
    if (Rare && (kSelectAll | fix3)) {
      const Real alpha3 = (dqn - (un - a) * dh) * r2a;
      const Real s3 = beta3 - l3 * alpha3;
      w3 = select(fix3, l3L * (l3R - l3) / safe_den(fix3, l3R - l3L) * alpha3 + left_share(l3) * s3, w3);
    }
  }
  const Real w2 = left_share(un) * beta2;

  Fluct m, p;
  m.h = w1 + w3;
  m.qn = w1 * l1 + w3 * l3;
  m.qt = m.h * ut + w2;

  const Real p1 = beta1 - w1, p3 = beta3 - w3;
  p.h = p1 + p3;
  p.qn = p1 * l1 + p3 * l3;
  p.qt = p.h * ut + (beta2 - w2);

  // Outflow limit (normal edges only; a wall edge sends nothing to its dry side).
  const Real F = qnL + m.h;  // mass flux L -> R
  const Real absF = shwa::abs(F);
  const Real Fmax = select(F > Real(0), L.h, R.h) * (shwa::abs(un) + a);
  const bool limit = !dry & !wall_right & !wall_left & (absF > Fmax);
  rare = rare | limit;
  if (Rare && (kSelectAll | limit)) {
    // Scale the interface fluxes seen from each side, F_L + D- and F_R - D+, by theta: mass stays
    // conservative (the two agree), and the momentum handed over shrinks with the mass, so the
    // film that receives it does not get an arbitrary velocity. (The pollutant follows the
    // limited mass flux below.)
    const Real theta = Fmax / safe_den(limit, absF), s = Real(1) - theta;
    const Real pL = Real(0.5) * g * L.h * L.h, pR = Real(0.5) * g * R.h * R.h;
    m = Fluct{select(limit, theta * m.h - s * qnL, m.h),
              select(limit, theta * m.qn - s * (qnL * L.un + pL), m.qn),
              select(limit, theta * m.qt - s * qnL * L.ut, m.qt), Real(0)};
    p = Fluct{select(limit, theta * p.h + s * qnR, p.h),
              select(limit, theta * p.qn + s * (qnR * R.un + pR), p.qn),
              select(limit, theta * p.qt + s * qnR * R.ut, p.qt), Real(0)};
  }

  // Pollutant, upwinded by the mass flux: the edge carries F* c_up, F* = qnL + D-_h = qnR - D+_h
  // the mass flux (limited or not: the limit keeps its sign), c_up the concentration of the cell
  // it leaves (L where F > 0, else R; where F = 0 either gives no flux). As fluctuations,
  //   D-_hc = F* c_up - qnL cL = D-_h c_up + qnL (c_up - cL),
  //   D+_hc = qnR cR - F* c_up = D+_h c_up + qnR (cR - c_up),
  // written with the mass fluctuations the depth update uses, so that a cell whose edges all
  // carry its own concentration away gets hc^{n+1} = c h^{n+1} from the same numbers, and where
  // cL = cR the pollutant fluctuations are c times the mass ones. At a wet/dry wall the mirror
  // has the wet side's c.
  // Both cases are computed and the results selected, as elsewhere. (The test is written
  // !(F <= 0), not F > 0 as for Fmax above: with the same comparison, GCC merges the two selects
  // into one between booleans of mixed widths and leaves the recompute loop scalar. The two
  // differ only for a NaN F.)
  // (upwind; the other tracers go through it too, from EdgeMass: tracer_fluct.)
  const bool from_left = !(F <= Real(0));
  upwind(from_left, m.h, p.h, qnL, qnR, L.c, R.c, m.hc, p.hc);

  // D- is zero between two dry cells and on the dry (left) side of a wall; D+ likewise.
  const bool zm = dry | wall_left, zp = dry | wall_right;
  dm = Fluct{select(zm, Real(0), m.h), select(zm, Real(0), m.qn), select(zm, Real(0), m.qt),
             select(zm, Real(0), m.hc)};
  dp = Fluct{select(zp, Real(0), p.h), select(zp, Real(0), p.qn), select(zp, Real(0), p.qt),
             select(zp, Real(0), p.hc)};
  em = EdgeMass{m.h, p.h, qnL, qnR, from_left, wall_left, wall_right, zm, zp};
}

/// roe_solve without what other tracers read: the edge's own tracer only.
template <bool MaybeDry, bool Rare>
KOKKOS_FORCEINLINE_FUNCTION void roe_solve(Prim L, Prim R, Real g, Real sqrt_g, Real eps_h,
                                           Fluct& dm, Fluct& dp, bool& rare) {
  EdgeMass em;
  roe_solve<MaybeDry, Rare>(L, R, g, sqrt_g, eps_h, dm, dp, rare, em);
}

/// The fluctuations D-_hc, D+_hc at an edge of a tracer other than the one roe_solve carried
/// (Prim::c), whose concentrations in the edge's two cells are cL and cR: the same mirror at a
/// wet/dry wall, the same upwinding by the mass flux (upwind, with the same operands) and the
/// same zeros, so that each tracer gets the bits it would get as roe_solve's own. A few
/// operations on `em`; the water is not solved again.
KOKKOS_FORCEINLINE_FUNCTION void tracer_fluct(const EdgeMass& em, Real cL, Real cR, Real& dm, Real& dp) {
  Real m, p;
  upwind(em.from_left, em.mh, em.ph, em.qnL, em.qnR, select(em.wall_left, cR, cL),
         select(em.wall_right, cL, cR), m, p);
  dm = select(em.zm, Real(0), m);
  dp = select(em.zp, Real(0), p);
}

/// The Roe fluctuations of an edge (roe_solve with every case).
template <bool MaybeDry = true>
KOKKOS_FORCEINLINE_FUNCTION void roe_fluctuations(Prim L, Prim R, Real g, Real sqrt_g, Real eps_h,
                                                  Fluct& dm, Fluct& dp) {
  bool rare;
  roe_solve<MaybeDry, true>(L, R, g, sqrt_g, eps_h, dm, dp, rare);
}
/// With what other tracers read (tracer_fluct).
template <bool MaybeDry = true>
KOKKOS_FORCEINLINE_FUNCTION void roe_fluctuations(Prim L, Prim R, Real g, Real sqrt_g, Real eps_h,
                                                  Fluct& dm, Fluct& dp, EdgeMass& em) {
  bool rare;
  roe_solve<MaybeDry, true>(L, R, g, sqrt_g, eps_h, dm, dp, rare, em);
}

/// The edge's wave-speed bound |un~| + a~ used by the CFL condition (docs/method.md section 3), with the same
/// wet/dry treatment as the flux. Zero between two dry cells. Branch-free like roe_fluctuations.
/// MaybeDry as for roe_fluctuations.
template <bool MaybeDry = true>
KOKKOS_FORCEINLINE_FUNCTION Real edge_speed(Prim L, Prim R, Real g, Real eps_h) {
  bool dry = false, wall_right = false, wall_left = false;
  if constexpr (MaybeDry) resolve_wet_dry(L, R, eps_h, dry, wall_right, wall_left);
  const Real un = shwa::divide(L.sh * L.un + R.sh * R.un, safe_den(!dry, L.sh + R.sh));
  // A wet side makes the root's operand normal (sqrt_normal); between two dry cells it is selected away.
  return select(dry, Real(0), shwa::abs(un) + shwa::sqrt_normal(g * Real(0.5) * (L.h + R.h)));
}

}  // namespace shwa
