"""check_bootstrap.py FILE.nc [--members]: the bootstrap a run stored, redone directly in numpy from
the file's own <l>_block_moments (the moments of its units of members): the resamples' units drawn
by a Philox4x32-10 written here
from Salmon et al. (SC'11) and checked against Random123's known-answer vectors, each resample's
record means, its least-squares line over the fitted records, then the standard errors, the 95%
intervals of slope and intercept and each record's 95% band, compared with the file's (relative
1e-9: the sums' order differs). Where the file has inverse_k1_exponent_se and snapshots at every
record, 1/k1's bootstrap too: each member's power spectrum from the archived fields (numpy's
FFT), summed over the same units, k1 over every nonzero mode (cuSten eq. 6).
--members (a file with member_series): a member-level bootstrap of the same slope from the
members' own series (numpy's generator, 4000 resamples), whose standard error must agree with the
run's within 4 times their sampling error (a standard error from B resamples is uncertain by
about 1/sqrt(2 (B - 1)) relatively, and one from b units by 1/sqrt(2 (b - 1)): the run's two and
the member-level one's B, added in quadrature). Exit 77 where netCDF4 is not installed."""
import sys

try:
    import netCDF4
    import numpy as np
except ImportError as missing:
    print(f"skipped: {missing.name} is not installed (make -f Makefile.workflow setup)")
    sys.exit(77)

M32 = np.uint64(0xFFFFFFFF)


def philox4x32_10(c, k):
    """Philox4x32-10 on arrays of counters c[4] and keys k[2] (uint64 holding 32-bit words)."""
    c0, c1, c2, c3 = (np.asarray(v, dtype=np.uint64) for v in c)
    k0, k1 = (np.asarray(v, dtype=np.uint64) for v in k)
    for i in range(10):
        if i:
            k0, k1 = (k0 + np.uint64(0x9E3779B9)) & M32, (k1 + np.uint64(0xBB67AE85)) & M32
        p0, p1 = np.uint64(0xD2511F53) * c0, np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & M32,
                          (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & M32)
    return c0, c1, c2, c3


KAT = [((0, 0, 0, 0), (0, 0), (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
       ((0xffffffff,) * 4, (0xffffffff,) * 2, (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
       ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xa4093822, 0x299f31d0),
        (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1))]
for ctr, key, want in KAT:
    got = tuple(int(v) for v in philox4x32_10(ctr, key))
    if got != want:
        print(f"FAIL philox4x32_10{ctr, key} = {[hex(v) for v in got]}")
        sys.exit(1)


def uniform(seed, stream, index):
    """cohort's value `index` of stream `stream` (backend/philox.h): cuRAND's double in (0, 1]."""
    index = np.asarray(index, dtype=np.uint64)
    block, w = index // np.uint64(2), index % np.uint64(2)
    r = philox4x32_10((block & M32, block >> np.uint64(32), stream & 0xFFFFFFFF, stream >> 32),
                      (seed & 0xFFFFFFFF, seed >> 32))
    x = np.where(w == 0, r[0], r[2])
    y = np.where(w == 0, r[1], r[3])
    z = (x ^ (y << np.uint64(21))) & np.uint64((1 << 53) - 1)
    return z.astype(np.float64) * 2.0**-53 + 2.0**-54


STREAM = (1 << 62) + (1 << 41)
with netCDF4.Dataset(sys.argv[1]) as ds:
    ds.set_auto_mask(False)
    length = "s" if "s_block_moments" in ds.variables else "ell"
    blocks = np.array(ds[f"{length}_block_moments"][...])  # (t, unit, moment)
    unit = int(ds[f"{length}_block_moments"].getncattr("unit_members"))
    member_values = np.array(ds[length][...]) if "--members" in sys.argv else None  # (t, member)
    band = np.array(ds[f"{length}_mean_ci95"][...])
    t = np.array(ds["t"][...])
    seed = int(ds.getncattr("seed"))
    resamples = int(ds.getncattr("bootstrap_resamples"))
    config = ds.getncattr("config")
    fit_from = float(next(line.split("=")[1] for line in config.splitlines()
                          if line.startswith("fit_from")))
    log_law = length == "ell"
    slope = "ell_vs_log_t_slope" if log_law else f"{length}_exponent"
    intercept = "ell_vs_log_t_intercept" if log_law else f"{length}_exponent_intercept"
    stored = {name: np.atleast_1d(ds.getncattr(name)) for name in
              (slope + "_se", slope + "_ci95", intercept + "_se", intercept + "_ci95")}
    k1_check = "inverse_k1_exponent_se" in ds.ncattrs() and "t_snap" in ds.variables
    if k1_check:
        k1_stored = {name: np.atleast_1d(ds.getncattr(name)) for name in
                     ("inverse_k1_exponent_se", "inverse_k1_exponent_ci95",
                      "inverse_k1_exponent_intercept_se", "inverse_k1_exponent_intercept_ci95")}
        fields = np.array(ds["C"][...])  # (t_snap, member, y, x)
        t_snap = np.array(ds["t_snap"][...])
        diverged = np.array(ds["diverged"][...]) != 0
        length = 2 * np.pi  # the runs checked here keep the default grid.length

n_records, nb, _ = blocks.shape
index = np.arange(resamples * nb, dtype=np.uint64)
draw = np.minimum(((1.0 - uniform(seed, STREAM, index)) * nb).astype(np.int64), nb - 1)
draw = draw.reshape(resamples, nb)
count, mean = blocks[:, :, 0], blocks[:, :, 1]
means = np.array([(count[:, d] * mean[:, d]).sum(axis=1) / count[:, d].sum(axis=1) for d in draw])
fitted = (t > 0) & (t >= fit_from)
x = np.log(t[fitted])
lines = []
for b in range(resamples):
    y = means[b, fitted] if log_law else np.log(means[b, fitted])
    ok = np.isfinite(y)
    lines.append(np.polyfit(x[ok], y[ok], 1) if ok.sum() >= 3 else (np.nan, np.nan))
lines = np.array(lines)
expected = {slope + "_se": [np.nanstd(lines[:, 0], ddof=1)],
            slope + "_ci95": np.nanpercentile(lines[:, 0], [2.5, 97.5]),
            intercept + "_se": [np.nanstd(lines[:, 1], ddof=1)],
            intercept + "_ci95": np.nanpercentile(lines[:, 1], [2.5, 97.5])}
failed = passed = 0
for name, want in expected.items():
    ok = np.allclose(stored[name], want, rtol=1e-9, atol=0)
    passed, failed = passed + ok, failed + (not ok)
    if not ok:
        print(f"FAIL {name}: file {stored[name]}, numpy {want}")
want_band = np.nanpercentile(means, [2.5, 97.5], axis=0).T
ok = np.allclose(band, want_band, rtol=1e-12, atol=0, equal_nan=True)
passed, failed = passed + ok, failed + (not ok)
if not ok:
    print(f"FAIL {length}_mean_ci95 differs from numpy's: {np.nanmax(abs(band - want_band))}")
if k1_check:
    # each member's |C^_k|^2 at each record (the snapshots are the records), summed per block
    assert np.allclose(t_snap, t), "check_bootstrap: the k1 check needs a snapshot at every record"
    ny, nx = fields.shape[2:]
    power = np.abs(np.fft.fft2(fields, axes=(-2, -1)) / (nx * ny)) ** 2
    power[:, diverged] = 0.0
    members = fields.shape[1]
    block_sums = np.add.reduceat(power, np.arange(0, members, unit), axis=1)  # (t, unit, y, x)
    kx = 2 * np.pi / length * np.fft.fftfreq(nx, 1.0 / nx)
    ky = 2 * np.pi / length * np.fft.fftfreq(ny, 1.0 / ny)
    modulus = np.hypot(*np.meshgrid(kx, ky))
    nonzero = modulus > 0
    inv_k1 = []
    for d in draw:
        p = block_sums[:, d].sum(axis=1)[..., nonzero] / count[:, d].sum(axis=1)[:, None]
        inv_k1.append((p / modulus[nonzero]).sum(axis=-1) / p.sum(axis=-1))
    lines = []
    for b in range(resamples):
        y = np.log(inv_k1[b][fitted])
        ok = np.isfinite(y)
        lines.append(np.polyfit(x[ok], y[ok], 1) if ok.sum() >= 3 else (np.nan, np.nan))
    lines = np.array(lines)
    want = {"inverse_k1_exponent_se": [np.nanstd(lines[:, 0], ddof=1)],
            "inverse_k1_exponent_ci95": np.nanpercentile(lines[:, 0], [2.5, 97.5]),
            "inverse_k1_exponent_intercept_se": [np.nanstd(lines[:, 1], ddof=1)],
            "inverse_k1_exponent_intercept_ci95": np.nanpercentile(lines[:, 1], [2.5, 97.5])}
    for name, value in want.items():
        ok = np.allclose(k1_stored[name], value, rtol=1e-9, atol=0)
        passed, failed = passed + ok, failed + (not ok)
        if not ok:
            print(f"FAIL {name}: file {k1_stored[name]}, numpy {value}")
if member_values is not None:
    rng = np.random.default_rng(20261129)
    members = member_values.shape[1]
    B = 4000
    member_lines = []
    for _ in range(B):
        pick = rng.integers(0, members, members)
        y = member_values[fitted][:, pick].mean(axis=1)
        member_lines.append(np.polyfit(x, y if log_law else np.log(y), 1)[0])
    member_se = np.std(member_lines, ddof=1)
    run_se = stored[slope + "_se"][0]
    sampling = 4 * np.sqrt(1 / (2 * (resamples - 1)) + 1 / (2 * (nb - 1)) + 1 / (2 * (B - 1)))
    ok = abs(run_se / member_se - 1) <= sampling
    passed, failed = passed + ok, failed + (not ok)
    print(f"{'ok' if ok else 'FAIL'} member-level bootstrap: se {member_se:.6g} ({B} resamples of "
          f"{members} members) against the run's {run_se:.6g} ({nb} units of {unit}): ratio "
          f"{run_se / member_se:.4f}, allowed 1 +- {sampling:.3f}")
print(f"{passed} passed, {failed} failed; {slope} se {stored[slope + '_se'][0]:.6g} "
      f"(numpy {expected[slope + '_se'][0]:.6g}), {resamples} resamples of {nb} units of {unit}")
sys.exit(1 if failed else 0)
