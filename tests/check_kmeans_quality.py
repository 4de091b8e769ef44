"""check_kmeans_quality.py FILE.nc [--one-restart]: the k-means measures a run stored, recomputed by
scikit-learn and numpy from the file's own final states and labels: kmeans_inertia (the squared
distances to the stored centroids), kmeans_silhouette (sklearn.metrics.silhouette_score over the
members of silhouette_member), that the subsample is distinct clustered members in order, and
that kmeans_restart_agreement is an adjusted Rand index (NaN with --one-restart: no runner-up);
for analysis.kmeans = auto, that the kept number of clusters is the first of the highest
kmeans_silhouette_by_k and kmeans_silhouette its value.
Exit 77 where netCDF4 or scikit-learn is not installed."""
import sys

try:
    import netCDF4
    import numpy as np
    from sklearn.metrics import silhouette_score
except ImportError as missing:
    print(f"skipped: {missing.name} is not installed (make -f Makefile.workflow setup)")
    sys.exit(77)

failed = passed = 0


def check(ok, what):
    global failed, passed
    passed += bool(ok)
    failed += not ok
    if not ok:
        print("FAIL", what)


one_restart = "--one-restart" in sys.argv[2:]
with netCDF4.Dataset(sys.argv[1]) as ds:
    ds.set_auto_mask(False)
    labels = np.array(ds["label"][...])
    x = np.array(ds["C"][...], dtype=np.float64).reshape(labels.size, -1)
    centroids = np.array(ds["centroid"][...]).reshape(-1, x.shape[1])
    inertia = float(ds["kmeans_inertia"][...])
    silhouette = float(ds["kmeans_silhouette"][...])
    sample = np.array(ds["silhouette_member"][...])
    agreement = float(ds["kmeans_restart_agreement"][...])
    clusters = ds.dimensions["cluster"].size
    by_k = (np.array(ds["kmeans_candidate_k"][...]), np.array(ds["kmeans_silhouette_by_k"][...])) \
        if "kmeans_candidate_k" in ds.variables else None

active = labels != 255
expected = float(np.sum((x[active] - centroids[labels[active]]) ** 2))
check(abs(inertia - expected) <= 1e-9 * expected, f"inertia {inertia!r}, numpy {expected!r}")
check(np.all(np.diff(sample) > 0) and np.all(active[sample]),
      "silhouette_member: ascending, distinct, clustered")
check(sample.size == min(active.sum(), 1024), f"{sample.size} sampled of {active.sum()}")
reference = silhouette_score(x[sample], labels[sample], metric="euclidean")
check(abs(silhouette - reference) <= 1e-9, f"silhouette {silhouette!r}, sklearn {reference!r}")
check(np.isnan(agreement) if one_restart else -1.0 <= agreement <= 1.0, f"agreement {agreement!r}")
if by_k is not None:
    best = int(np.argmax(by_k[1]))
    check(clusters == by_k[0][best] and silhouette == by_k[1][best],
          f"auto kept k = {clusters}, silhouette {silhouette!r}; the criterion's best: "
          f"k = {by_k[0][best]}, {by_k[1][best]!r}")
print(f"{passed} passed, {failed} failed; silhouette {silhouette:.6f} (sklearn {reference:.6f}), "
      f"restart agreement {agreement:.6f}")
sys.exit(1 if failed else 0)
