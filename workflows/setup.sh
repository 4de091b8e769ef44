#!/bin/sh
# Usage: setup.sh [fuzz]
# Installs what cohort needs to build and test, where missing: the Debian/Ubuntu packages (apt-get,
# with sudo when not root), then the IOOS compliance-checker (PyPI) into .venv for the CF check of
# the files and, with a CUDA toolkit, NVIDIA's libmathdx (PyPI) for bench-banded's cuSolverDx peer.
# The CUDA toolkit is not installed here: with nvcc on PATH (or at /usr/local/cuda/bin) the cuda
# backend is built, without it the cpu backend alone.
set -eu
# python3-netcdf4, -xarray, -matplotlib: the file checks and plots (Debian's python3, /usr/bin);
# python3-sklearn: the reference for k-means' measures (tests/check_kmeans_quality.py);
# python3-scipy: the Sobol points' reference (tests/check_design.py) and the closed forms' quadrature;
# python3-venv: the virtual environment of the CF checker
# libopenmpi-dev, openmpi-bin: cohort run under mpirun (optional at build time; tests/test_mpi.sh)
packages="build-essential cmake pkg-config libnetcdf-dev libgsl-dev libinih-dev librandom123-dev
          libopenmpi-dev openmpi-bin
          python3-netcdf4 python3-xarray python3-matplotlib python3-sklearn python3-scipy
          python3-venv"
# `setup.sh fuzz`: clang with libFuzzer and OpenMP, for make -f Makefile.workflow fuzz
if [ "${1:-}" = fuzz ]; then packages="$packages clang libclang-rt-dev libomp-dev"; fi
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    echo "cohort setup: installing$missing"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi
# the CF checker (tests/check_cf.sh); without a network it is skipped, not fatal
if [ ! -x .venv/bin/compliance-checker ]; then
    echo "cohort setup: installing compliance-checker into .venv"
    { /usr/bin/python3 -m venv .venv && .venv/bin/pip install -q compliance-checker; } ||
        echo "cohort setup: compliance-checker not installed; the CF check (ctest cf) is skipped"
fi
# bench-banded's cuSolverDx peer (tests/bench_cusolverdx.h): libmathdx from PyPI, where there is a
# CUDA toolkit (whose NVRTC it uses, hence --no-deps); without it the benchmark skips that row
if { command -v nvcc || test -x /usr/local/cuda/bin/nvcc; } >/dev/null 2>&1 &&
    [ -x .venv/bin/pip ] && ! ls .venv/lib/python3*/site-packages/nvidia/cu13/lib/libmathdx.so.0 \
    >/dev/null 2>&1; then
    echo "cohort setup: installing nvidia-libmathdx-cu13 into .venv"
    .venv/bin/pip install -q --no-deps --force-reinstall nvidia-libmathdx-cu13 ||
        echo "cohort setup: libmathdx not installed; bench-banded skips its cuSolverDx row"
fi
