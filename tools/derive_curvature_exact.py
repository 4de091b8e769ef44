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


# zeta = cos(pi t) X(x) Y(y) with X(a) = (a^n - r^n) exp(-sigma a^2) / r^n (and Y the same
# function): a node's jets d^(a+b) zeta / dx^a dy^b are cos(pi t) X^(a)(x) Y^(b)(y), products of
# per-axis tables. The flows' operators are derived for a generic f(x, y) and written in its jets
# z_ab, so a node evaluates the operator once (some 420 operations for Willmore) instead of the
# expansion of zeta's own derivatives (1,184).
a_, g_, rn_ = sp.symbols("a g rn", real=True)
AX = sp.symbols("ax0:5", real=True)  # X^(k)(x), k = 0 .. 4, from the axis table
AY = sp.symbols("ay0:5", real=True)
C, S = sp.symbols("c s", real=True)  # cos(pi t), sin(pi t)
JET = {(i, k - i): sp.Symbol(f"z{i}{k - i}", real=True) for k in range(5) for i in range(k + 1)}


def in_jets(expr, f):
    """expr (in the derivatives of f(x, y)) in the jet symbols z_ab."""
    sub = {}
    for (i, k), z in JET.items():
        if i + k:
            sub[sp.Derivative(f, *([(x, i)] if i else []), *([(y, k)] if k else []))] = z
    return expr.subs(sub).subs(f, JET[(0, 0)])


def axis_derivatives():
    """X^(k)(a), k = 0 .. 4, in xpow(a, n, j), g = exp(-sigma a^2) and rn = r^n."""
    X = (xpow(a_, n, 0) - r**n) * sp.exp(-sigma * a_**2) / r**n
    out = []
    for k in range(5):
        e = sp.diff(X, a_, k).subs(sp.exp(-sigma * a_**2), g_).subs(r**n, rn_)
        out.append(sp.expand(e))
    if any(e.atoms(sp.exp) for e in out):
        sys.exit("exp left in the axis derivatives")
    return out


def emit(name, expr, doc):
    """COHORT_HD_CALLED (not inlined on the device): the fused and the per-stage kernels then
    evaluate the long expressions with the same roundings. Only the jets expr uses are formed."""
    subs, (e,) = sp.cse([expr], optimizations="basic")
    used = set().union(e.free_symbols, *(v.free_symbols for _, v in subs))
    jets = [(ik, z) for ik, z in JET.items() if z in used]
    lines = [f"/* {doc} */",
             f"COHORT_HD_CALLED double {name}(curvature_time_factors tf, const curvature_axis *ax, "
             "const curvature_axis *ay)",
             "{"]
    if C in used or jets:
        lines.append("    const double c = tf.cos_pi_t;")
    if S in used:
        lines.append("    const double s = tf.sin_pi_t;")
    if AX[0] in used or AY[0] in used:
        lines.append("    const double ax0 = ax->d[0], ay0 = ay->d[0];")
    for (i, k), z in jets:
        lines.append(f"    const double {z} = c * ax->d[{i}] * ay->d[{k}];")
    for s_, v in subs:
        lines.append(f"    const double {s_} = {ccode(v)};")
    lines.append(f"    return {ccode(e)};")
    lines.append("}")
    return "\n".join(lines)


S_JET = {ik: sp.Symbol(f"s{ik[0]}{ik[1]}", real=True) for ik in JET}  # s's jets, s = X(x) Y(y)
SLOPE2 = S_JET[(1, 0)] ** 2 + S_JET[(0, 1)] ** 2  # |grad s|^2


def odd_rational_in_c(expr):
    """expr, an operator of f written in f's jets, at f = c s: every jet of f is c times s's, and
    the Willmore operator is c P(c^2) / (1 + c^2 |grad s|^2)^4 with P's coefficients polynomials
    in s's jets (Q^2 = 1 + c^2 |grad s|^2 is the only denominator, Q itself cancels). Returns P's
    coefficients from c^0 up, after checking that identity exactly."""
    e = sp.together(expr.subs({z: C * S_JET[ik] for ik, z in JET.items()}))
    num, den = sp.fraction(e)
    k = den.subs(C, 0)
    if sp.expand(den - k * (1 + C**2 * SLOPE2) ** 4) != 0:
        sys.exit("the operator's denominator in c is not (1 + c^2 |grad s|^2)^4")
    P = sp.Poly(sp.expand(num / k), C)
    if any(m[0] % 2 == 0 for m in P.monoms()):
        sys.exit("the operator is not odd in c")
    coeffs = [P.coeff_monomial(C ** (2 * j + 1)) for j in range(P.degree() // 2 + 1)]
    rest = sp.expand(num / k - sum(p * C ** (2 * j + 1) for j, p in enumerate(coeffs)))
    if rest != 0:
        sys.exit("the operator's numerator is not c P(c^2)")
    return coeffs


def willmore_table_eval(coeffs, slope2, c):
    """The tabulated W(c s): c P(c^2) by Horner in c^2, over ((1 + c^2 |grad s|^2)^2)^2."""
    c2 = c * c
    poly = coeffs[-1]
    for p in reversed(coeffs[:-1]):
        poly = p + c2 * poly
    q2 = 1 + c2 * slope2
    return c * poly / (q2 * q2) ** 2


def check_table_rounding(willmore, coeffs):
    """The table's evaluation against W's expression in zeta's jets, both in float64, at random
    jets (entries of [-2, 2]) and c in [0.9, 1], against 50-digit evaluations: the largest errors
    relative to max(|W|, 1e-3). Returns (direct, tabulated)."""
    import mpmath
    import numpy as np
    mpmath.mp.dps = 50
    s_syms = list(S_JET.values())
    direct_args = [C] + list(JET.values())
    direct64 = sp.lambdify(direct_args, willmore, "math")
    direct50 = sp.lambdify(direct_args, willmore, "mpmath")
    table64 = sp.lambdify(s_syms, coeffs + [SLOPE2], "math")
    rng = np.random.default_rng(30)
    worst = [0.0, 0.0]
    for _ in range(200):
        s_val = [float(v) for v in rng.uniform(-2.0, 2.0, len(s_syms))]
        c = float(rng.uniform(0.9, 1.0))
        exact = float(direct50(mpmath.mpf(c), *[mpmath.mpf(c) * mpmath.mpf(v) for v in s_val]))
        t = table64(*s_val)
        got = (direct64(c, *[c * v for v in s_val]), willmore_table_eval(t[:-1], t[-1], c))
        scale = max(abs(exact), 1e-3)
        worst = [max(w, abs(g - exact) / scale) for w, g in zip(worst, got)]
    return worst


def emit_willmore_table(coeffs, doc):
    """The table's entry at a node from the axis entries: P's coefficients, |grad s|^2 and s."""
    subs, es = sp.cse(coeffs + [SLOPE2, S_JET[(0, 0)]], optimizations="basic")
    used = set().union(*(e.free_symbols for e in es), *(v.free_symbols for _, v in subs))
    lines = [f"/* {doc} */",
             "COHORT_HD curvature_willmore_forcing curvature_willmore_forcing_at("
             "const curvature_axis *ax, const curvature_axis *ay)",
             "{"]
    for (i, k), z in S_JET.items():
        if z in used:
            lines.append(f"    const double {z} = ax->d[{i}] * ay->d[{k}];")
    for s_, v in subs:
        lines.append(f"    const double {s_} = {ccode(v)};")
    lines.append("    curvature_willmore_forcing e;")
    for j, e in enumerate(es[:len(coeffs)]):
        lines.append(f"    e.p[{j}] = {ccode(e)};")
    lines.append(f"    e.slope2 = {ccode(es[-2])};")
    lines.append(f"    e.s = {ccode(es[-1])};")
    lines += ["    return e;", "}"]
    return "\n".join(lines)


def operations(expr):
    """The operators of expr after common subexpressions are taken out (sqrt, sin, cos as one)."""
    subs, (e,) = sp.cse([expr], optimizations="basic")
    return sum(sp.count_ops(v) for _, v in subs) + sp.count_ops(e)


def main():
    f = sp.Function("f")(x, y)
    mc = in_jets(mcf_rhs(f), f)
    willmore, w = willmore_rhs_and_w(f)
    willmore, w = in_jets(willmore, f), in_jets(w, f)
    # zeta_t = -pi sin(pi t) X Y
    zt = -sp.pi * S * AX[0] * AY[0]
    check_gradient_flow()
    print("/* Generated by tools/derive_curvature_exact.py (SymPy " + sp.__version__ +
          "); do not edit. The exact solution")
    print(" * zeta of seed 000, eq. 30, its Willmore variable w = Q div(grad zeta / Q), and the "
          "forcing terms")
    print(" * that make zeta an exact solution of the mean-curvature and the Willmore flow of "
          "graphs (derivation")
    print(" * and sign conventions in the script). Operators per node, counted as SymPy's count_ops "
          "after")
    coeffs = odd_rational_in_c(willmore)
    entry = sp.symbols(f"p0:{len(coeffs)}", real=True)  # a table entry, as symbols
    table_eval = (-sp.pi * S * S_JET[(0, 0)] -
                  willmore_table_eval(entry, sp.Symbol("slope2", real=True), C))
    worst = check_table_rounding(willmore, coeffs)
    print(f" * common subexpressions, jets not included: w {operations(w)}, F_MC "
          f"{operations(zt - mc)}, F_W {operations(zt - willmore)} in zeta's jets, or "
          f"{operations(table_eval)}")
    print(f" * from the node's table entry (tabulating it: "
          f"{operations(sp.Matrix(coeffs + [SLOPE2]))}, once). F_W's float64 rounding at 200 "
          f"random jets, relative")
    print(f" * to max(|W|, 1e-3) against 50 digits: {worst[0]:.1e} from zeta's jets, "
          f"{worst[1]:.1e} from the table. */")
    print("#ifndef COHORT_CURVATURE_EXACT_H\n#define COHORT_CURVATURE_EXACT_H\n")
    print("#include <math.h>\n\n#include \"backend/cohort_hd.h\"\n")
    print("/* The k-th derivative of x^n, n (n - 1) ... (n - k + 1) x^(n - k): 0 where the falling "
          "factorial is\n * (integer n < k), so that x = 0 is no singularity for integer n. */")
    print("COHORT_HD double curvature_xpow(double x, double n, int k)\n{\n    double c = 1.0;\n"
          "    for (int q = 0; q < k; ++q) c *= n - q;\n"
          "    return c == 0.0 ? 0.0 : c * pow(x, n - k);\n}\n")
    print("/* zeta's constants: the exponent n, the radius r, the decay sigma, and r^n */")
    print("typedef struct curvature_exact_params {\n    double n, r, sigma, rn;\n} "
          "curvature_exact_params;\n")
    print("COHORT_HD curvature_exact_params curvature_exact_params_make(double n, double r, "
          "double sigma)\n{\n    const curvature_exact_params p = {n, r, sigma, pow(r, n)};\n"
          "    return p;\n}\n")
    print("/* zeta's factor along one axis, X(a) = (a^n - r^n) exp(-sigma a^2) / r^n, and its "
          "derivatives:\n * d[k] = X^(k)(a), k = 0 .. 4; tabulated once per grid line, so that "
          "a node evaluates no pow or\n * exp. */")
    print("typedef struct curvature_axis {\n    double d[5];\n} curvature_axis;\n")
    print("/* zeta's time factor cos(pi t) and its derivative's sin(pi t), formed once per member "
          "and time\n * (not per node) and handed to the functions below. */")
    print("typedef struct curvature_time_factors {\n    double cos_pi_t, sin_pi_t;\n} "
          "curvature_time_factors;\n")
    print("/* Both factors from one exact reduction of t (cohort_sincospi), the same bits on "
          "both backends\n * and no slow path for large arguments (a cos and a sin of pi t were "
          "a large share of the fused\n * advance of willmore2d 16^2: "
          "solvers/banded/PERFORMANCE.md). */")
    print("COHORT_HD curvature_time_factors curvature_time_factors_at(double t)\n{\n"
          "    curvature_time_factors tf;\n"
          "    cohort_sincospi(t, &tf.sin_pi_t, &tf.cos_pi_t);\n"
          "    return tf;\n}\n")
    derivs = axis_derivatives()
    subs, es = sp.cse(derivs, optimizations="basic")
    body = ["COHORT_HD curvature_axis curvature_axis_at(double a, const curvature_exact_params *p)",
            "{",
            "    const double n = p->n, sigma = p->sigma, rn = p->rn, g = exp(-sigma * a * a);"]
    for s_, v in subs:
        body.append(f"    const double {s_} = {ccode(v)};")
    body.append("    curvature_axis v;")
    for k, e in enumerate(es):
        body.append(f"    v.d[{k}] = {ccode(e)};")
    body += ["    return v;", "}", ""]
    print("\n".join(body))
    print(emit("curvature_exact_zeta", C * AX[0] * AY[0],
               "zeta(t, x, y) = cos(pi t) X(x) Y(y), at the node whose axis entries are ax, ay, tf "
               "those of t"))
    print()
    print(emit("curvature_exact_w", w, "w = Q div(grad zeta / Q) at (t, x, y)"))
    print()
    print(emit("curvature_exact_forcing_mcf", zt - mc, "F_MC = zeta_t - Q div(grad zeta / Q)"))
    print()
    print("""/* Willmore's operator W (F_W = zeta_t - W(zeta)) at zeta = c s, c = cos(pi t), s = X(x) Y(y):
 * every jet of zeta is c times s's, and Q^2 = 1 + c^2 |grad s|^2 is W's only denominator, so
 *   W(c s) = c (p[0] + p[1] c^2 + ... + p[%d] c^%d) / (1 + c^2 |grad s|^2)^4,
 * p and |grad s|^2 polynomials in s's jets alone (the script checks the identity exactly).
 * Tabulated once per node (curvature_willmore_forcing_at), they make a node's F_W at each time 18
 * operations (one a division) instead of W's 455 in zeta's jets. */
typedef struct curvature_willmore_forcing {
    double p[%d], slope2, s; /* slope2 = |grad s|^2; s = X Y, for zeta_t */
} curvature_willmore_forcing;
""" % (len(coeffs) - 1, 2 * len(coeffs) - 2, len(coeffs)))
    print(emit_willmore_table(coeffs, "The table's entry of the node whose axis entries are ax, "
                                      "ay"))
    print()
    horner = "k.p[%d]" % (len(coeffs) - 1)
    for j in reversed(range(len(coeffs) - 1)):
        horner = f"cohort_mul_add(c2, {horner}, k.p[{j}])"
    print(f"""/* F_W = zeta_t - W(zeta) at the node whose table entry is k. Inlined (the fused advance holds
 * a node's entry in registers), with its roundings spelled out so that every kernel rounds it
 * alike (cohort_hd.h). */
COHORT_HD double curvature_exact_forcing_willmore(curvature_time_factors tf,
                                                  curvature_willmore_forcing k)
{{
    const double c = tf.cos_pi_t, c2 = cohort_mul(c, c), q2 = cohort_mul_add(c2, k.slope2, 1.0);
    const double q4 = cohort_mul(q2, q2), poly = {horner};
    return cohort_mul(-3.14159265358979323846 * tf.sin_pi_t, k.s) -
           cohort_mul(cohort_mul(c, poly), cohort_reciprocal(cohort_mul(q4, q4)));
}}""")
    print("\n#endif")


if __name__ == "__main__":
    main()
