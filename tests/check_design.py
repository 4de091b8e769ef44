"""A space-filling design's points in a cohort file, against an independent computation.

Sobol and Saltelli: scipy.stats.qmc.Sobol's unscrambled Joe-Kuo points (32 bits), XORed with the
digital shifts the file states, mapped onto each key's range; Saltelli's arms laid out A, B,
AB_1 .. AB_d per base point. Latin hypercube: every dimension has exactly one point in each of
its `points` strata. Exit 0 agrees, 1 differs, 77 without netCDF4 or scipy.

Usage: check_design.py FILE
"""
import sys

try:
    import netCDF4
    import numpy as np
    from scipy.stats import qmc
except ImportError:
    sys.exit(77)


def unit_values(var, values):
    """The members' values of one swept key mapped back onto [0, 1]."""
    lo, hi = (float(v) for v in var.getncattr("design_range"))
    if var.getncattr("design_distribution") == "log-uniform":
        return (np.log(values) - np.log(lo)) / (np.log(hi) - np.log(lo))
    return (values - lo) / (hi - lo)


def scaled(var, unit):
    """Unit-cube coordinates on one key's range, as cohort maps them."""
    lo, hi = (float(v) for v in var.getncattr("design_range"))
    if var.getncattr("design_distribution") == "log-uniform":
        out = np.exp(np.log(lo) + (np.log(hi) - np.log(lo)) * unit)
    else:
        out = lo + (hi - lo) * unit
    return np.clip(out, lo, hi)


def sobol_expected(params, base, dims, shift_index):
    """Each key's expected values per base point, and per B column for Saltelli."""
    bits = qmc.Sobol(dims, scramble=False, bits=32).random(base)
    words = np.round(bits * 2.0**32).astype(np.uint64)
    columns = []
    for j, var in enumerate(params):
        shifts = np.atleast_1d(var.getncattr("sobol_digital_shift")).astype(np.uint64)
        cols = [(words[:, j + s * len(params)] ^ shifts[s]).astype(np.float64) * 2.0**-32
                for s in range(shift_index)]
        columns.append([scaled(var, c) for c in cols])
    return columns


def check(path):
    with netCDF4.Dataset(path) as ds:
        design = ds.getncattr("sweep_design")
        points = int(ds.getncattr("sweep_points"))
        params = [v for v in ds.variables.values() if "design_range" in v.ncattrs()]
        got = np.array([np.asarray(v[...], dtype=np.float64) for v in params])
        members = ds.dimensions["member"].size
        d = len(params)
        if design == "lhs":
            replicates = members // points
            unit = np.array([unit_values(v, g) for v, g in zip(params, got)])[:, ::replicates]
            strata = np.floor(unit * points - 1e-9).astype(int)
            ok = all(np.array_equal(np.sort(s), np.arange(points)) for s in strata)
            print(f"{path}: lhs, {points} points x {d} keys, one per stratum: {ok}")
            return ok
        arms = int(ds.getncattr("saltelli_arms")) if design == "saltelli" else 1
        replicates = members // (points * arms)
        expect = sobol_expected(params, points, d * (2 if arms > 1 else 1), 2 if arms > 1 else 1)
        worst = 0.0
        for j in range(d):
            per_point = got[j][::replicates]
            if arms == 1:
                want = expect[j][0]
            else:  # arm 0: A, 1: B, 2 + c: A with column c from B
                table = np.empty((points, arms))
                for arm in range(arms):
                    table[:, arm] = expect[j][1 if arm == 1 or arm == 2 + j else 0]
                want = table.reshape(-1)
            worst = max(worst, float(np.max(np.abs(per_point - want) / np.abs(want))))
        ok = worst <= 4e-16
        print(f"{path}: {design}, {points} points x {d} keys, largest relative difference from "
              f"scipy's Sobol points {worst:.2e}: {'ok' if ok else 'FAIL'}")
        return ok


sys.exit(0 if check(sys.argv[1]) else 1)
