#!/usr/bin/env python3
"""Derives the exact solution and forcing terms of the curvature-flow EOC tests (seed 000, eq. 30)
and writes them as C (COHORT_HD inline functions) to solvers/models/curvature2d/curvature_exact.h.

The graph flows, with Q = sqrt(1 + |grad phi|^2) and the mean curvature H = div(grad phi / Q):
  mean-curvature flow (seed 000, Scheme 3.1):  phi_t = Q div(grad phi / Q) + F_MC
  Willmore flow (eq. 10-11):                    phi_t = -Q div(E grad w - w^2 / (2 Q^3) grad phi)
                                                        + F_W,  w = Q H,  E = (I - p p^T / Q^2) / Q,
                                                        p = grad phi.
Eq. 6 prints the mean-curvature flow as phi_t = -Q div(grad phi / Q), which is backward parabolic;
Scheme 3.1 (eq. 17) has the well-posed sign, taken here. Eq. 10 is well posed as printed (its
linearisation is phi_t = -lap^2 phi), and Scheme 3.2 (eq. 21) as extracted carries the opposite
overall sign; cohort follows eq. 10. The forcing makes zeta an exact solution:
  F = zeta_t - (the flow's right-hand side at zeta).
zeta (eq. 30) = cos(pi t) (x^n - r^n)(y^n - r^n) / r^(2n) exp(-sigma (x^2 + y^2)).

The script also checks that eq. 10 is the L2(Gamma) gradient flow of W = (1/2) int H^2 dS, i.e.
dW/dt = -int phi_t^2 / Q dx, on a Gaussian bump (the sign and the factor of the w^2 term, which
the linearisation cannot see).

Run once (Debian: python3-sympy):
  /usr/bin/python3 tools/derive_curvature_exact.py | clang-format --assume-filename=x.h > FILE
"""
import sys
import sympy as sp
from sympy.printing.c import C99CodePrinter

t, x, y, n, r, sigma = sp.symbols("t x y n r sigma", real=True)


class xpow(sp.Function):
    """xpow(x, n, k): the k-th derivative of x^n, n (n - 1) ... (n - k + 1) x^(n - k), as its own
    function: SymPy writes d/dx x^n as n x^n / x, which is NaN at x = 0."""

    def fdiff(self, argindex=1):
        if argindex != 1:
            raise NotImplementedError("only d/dx")
        a, m, k = self.args
        return xpow(a, m, k + 1)


def grad(f):
    return sp.diff(f, x), sp.diff(f, y)


def div(fx, fy):
    return sp.diff(fx, x) + sp.diff(fy, y)


def mcf_rhs(phi):
    px, py = grad(phi)
    Q = sp.sqrt(1 + px**2 + py**2)
    return Q * div(px / Q, py / Q)


def willmore_rhs_and_w(phi):
    px, py = grad(phi)
    Q = sp.sqrt(1 + px**2 + py**2)
    w = Q * div(px / Q, py / Q)
    wx, wy = grad(w)
    # E grad w = (grad w - p (p . grad w) / Q^2) / Q
    pw = px * wx + py * wy
    fx = (wx - px * pw / Q**2) / Q - w**2 / (2 * Q**3) * px
    fy = (wy - py * pw / Q**2) / Q - w**2 / (2 * Q**3) * py
    return -Q * div(fx, fy), w


def check_gradient_flow():
    """dW/dt = -int phi_t^2 / Q for W = 1/2 int w^2 / Q dx, on a Gaussian bump: the operators by
    FFT on a periodic box much wider than the bump, dW/dt by a central difference along phi_t."""
    import numpy as np
    m, L = 256, 20.0
    s = (np.arange(m) - m // 2) * (L / m)
    X, Y = np.meshgrid(s, s, indexing="ij")
    k = 2 * np.pi * np.fft.fftfreq(m, L / m)
    KX, KY = np.meshgrid(k, k, indexing="ij")

    def d(f, kk):
        return np.real(np.fft.ifft2(1j * kk * np.fft.fft2(f)))

    def w_and_rhs(phi):
        px, py = d(phi, KX), d(phi, KY)
        Q = np.sqrt(1 + px**2 + py**2)
        w = Q * (d(px / Q, KX) + d(py / Q, KY))
        wx, wy = d(w, KX), d(w, KY)
        pw = px * wx + py * wy
        fx = (wx - px * pw / Q**2) / Q - w**2 / (2 * Q**3) * px
        fy = (wy - py * pw / Q**2) / Q - w**2 / (2 * Q**3) * py
        return w, Q, -Q * (d(fx, KX) + d(fy, KY))

    phi = 0.5 * np.exp(-(X**2 + Y**2))
    _, Q, v = w_and_rhs(phi)
    eps, h2 = 1e-6, (L / m) ** 2

    def energy(f):
        w, q, _ = w_and_rhs(f)
        return 0.5 * np.sum(w**2 / q) * h2

    rate = (energy(phi + eps * v) - energy(phi - eps * v)) / (2 * eps)
    expected = -np.sum(v**2 / Q) * h2
    print(f"/* gradient-flow check on (1/2) exp(-x^2 - y^2): dW/dt = {rate:.8g}, "
          f"-int phi_t^2/Q dx = {expected:.8g} */")
    if abs(rate - expected) > 1e-6 * abs(expected):
        sys.exit("eq. 10 is not the gradient flow of (1/2) int H^2 dS")


class Printer(C99CodePrinter):
    """Small integer powers as products (pow(x, 3) is a library call without -ffast-math)."""

    def _print_Pow(self, expr):
        b, e = expr.args
        if e.is_Integer and 2 <= abs(int(e)) <= 6:
            prod = "*".join(["(" + self._print(b) + ")"] * abs(int(e)))
            return f"({prod})" if e > 0 else f"(1.0/({prod}))"
        return super()._print_Pow(expr)


def ccode(e):
    """C11 without M_PI (POSIX, not ISO C)."""
    return Printer({"user_functions": {"xpow": "curvature_xpow"}}).doprint(e).replace(
        "M_PI", "3.14159265358979323846")


X = sp.symbols("ax0:5", real=True)  # xpow(x, n, k), k = 0 .. 4
Y = sp.symbols("ay0:5", real=True)
GX, GY, RN, R2N = sp.symbols("gx gy rn r2n", real=True)  # exp(-sigma x^2), ..., r^n, r^(-2n)


def factored(expr):
    """The expression in the factors that depend on x alone or y alone (x^n and its derivatives,
    the Gaussian), which the caller takes from per-axis tables, and in r^n: only sqrt, sin and cos
    are left to evaluate per node."""
    expr = expr.subs(sp.exp(-sigma * (x**2 + y**2)), GX * GY)
    expr = expr.replace(lambda e: isinstance(e, xpow),
                        lambda e: (X if e.args[0] == x else Y)[int(e.args[2])])
    expr = expr.subs({r**(-2 * n): R2N, r**n: RN})
    left = expr.atoms(sp.exp, xpow) | {a for a in expr.atoms(sp.Pow) if a.base == r}
    if left:
        sys.exit(f"factors left in the expression: {left}")
    return expr


def emit(name, expr, doc):
    """COHORT_HD_CALLED (not inlined on the device): the fused and the per-stage kernels then
    evaluate the long expressions with the same roundings."""
    subs, (e,) = sp.cse([factored(expr)], optimizations="basic")
    lines = [f"/* {doc} */",
             f"COHORT_HD_CALLED double {name}(double t, double x, double y, const curvature_axis *ax,",
             "                         const curvature_axis *ay, const curvature_exact_params *p)",
             "{",
             "    const double n = p->n, rn = p->rn, r2n = p->r2n, sigma = p->sigma;",
             "    const double ax0 = ax->xpow[0], ax1 = ax->xpow[1], ax2 = ax->xpow[2], "
             "ax3 = ax->xpow[3], ax4 = ax->xpow[4], gx = ax->gauss;",
             "    const double ay0 = ay->xpow[0], ay1 = ay->xpow[1], ay2 = ay->xpow[2], "
             "ay3 = ay->xpow[3], ay4 = ay->xpow[4], gy = ay->gauss;",
             "    (void)t, (void)x, (void)y, (void)n, (void)rn, (void)r2n, (void)sigma;",
             "    (void)ax0, (void)ax1, (void)ax2, (void)ax3, (void)ax4, (void)gx;",
             "    (void)ay0, (void)ay1, (void)ay2, (void)ay3, (void)ay4, (void)gy;"]
    for s_, v in subs:
        lines.append(f"    const double {s_} = {ccode(v)};")
    lines.append(f"    return {ccode(e)};")
    lines.append("}")
    return "\n".join(lines)


def main():
    zeta = sp.cos(sp.pi * t) * (xpow(x, n, 0) - r**n) * (xpow(y, n, 0) - r**n) / r**(2 * n) * sp.exp(
        -sigma * (x**2 + y**2))
    zt = sp.diff(zeta, t)
    f_mc = zt - mcf_rhs(zeta)
    w_rhs, w = willmore_rhs_and_w(zeta)
    f_w = zt - w_rhs
    check_gradient_flow()
    print("/* Generated by tools/derive_curvature_exact.py (SymPy " + sp.__version__ +
          "); do not edit. The exact solution")
    print(" * zeta of seed 000, eq. 30, its Willmore variable w = Q div(grad zeta / Q), and the "
          "forcing terms")
    print(" * that make zeta an exact solution of the mean-curvature and the Willmore flow of "
          "graphs (derivation")
    print(" * and sign conventions in the script). */")
    print("#ifndef COHORT_CURVATURE_EXACT_H\n#define COHORT_CURVATURE_EXACT_H\n")
    print("#include <math.h>\n\n#include \"backend/cohort_hd.h\"\n")
    print("/* The k-th derivative of x^n, n (n - 1) ... (n - k + 1) x^(n - k): 0 where the falling "
          "factorial is\n * (integer n < k), so that x = 0 is no singularity for integer n. */")
    print("COHORT_HD double curvature_xpow(double x, double n, int k)\n{\n    double c = 1.0;\n"
          "    for (int q = 0; q < k; ++q) c *= n - q;\n"
          "    return c == 0.0 ? 0.0 : c * pow(x, n - k);\n}\n")
    print("/* zeta's constants: the exponent n, the radius r, the decay sigma, and r^n, r^(-2n) */")
    print("typedef struct curvature_exact_params {\n    double n, r, sigma, rn, r2n;\n} "
          "curvature_exact_params;\n")
    print("COHORT_HD curvature_exact_params curvature_exact_params_make(double n, double r, "
          "double sigma)\n{\n    const curvature_exact_params p = {n, r, sigma, pow(r, n), "
          "pow(r, -2.0 * n)};\n    return p;\n}\n")
    print("/* What zeta depends on along one axis, at one coordinate a: d^k/da^k a^n (k = 0 .. 4) "
          "and\n * exp(-sigma a^2); tabulated once per grid line, so that a node evaluates no "
          "pow or exp. */")
    print("typedef struct curvature_axis {\n    double xpow[5], gauss;\n} curvature_axis;\n")
    print("COHORT_HD curvature_axis curvature_axis_at(double a, const curvature_exact_params *p)"
          "\n{\n    curvature_axis v;\n    for (int k = 0; k < 5; ++k) v.xpow[k] = "
          "curvature_xpow(a, p->n, k);\n    v.gauss = exp(-p->sigma * a * a);\n    return v;\n}\n")
    print(emit("curvature_exact_zeta", zeta,
               "zeta(t, x, y) = cos(pi t) (x^n - r^n)(y^n - r^n) / r^(2n) exp(-sigma (x^2 + y^2))"))
    print()
    print(emit("curvature_exact_w", w, "w = Q div(grad zeta / Q) at (t, x, y)"))
    print()
    print(emit("curvature_exact_forcing_mcf", f_mc, "F_MC = zeta_t - Q div(grad zeta / Q)"))
    print()
    print(emit("curvature_exact_forcing_willmore", f_w,
               "F_W = zeta_t + Q div(E grad w - w^2 / (2 Q^3) grad zeta)"))
    print("\n#endif")


if __name__ == "__main__":
    main()
