#!/bin/sh
# Installs the Debian/Ubuntu packages cohort needs to build and test, where missing (apt-get, with
# sudo when not root). The CUDA toolkit is not installed here: with nvcc on PATH (or at
# /usr/local/cuda/bin) the cuda backend is built, without it the cpu backend alone.
set -eu
# python3-netcdf4, -xarray, -matplotlib: the file checks and plots (Debian's python3, /usr/bin)
packages="build-essential cmake pkg-config libnetcdf-dev libgsl-dev libinih-dev librandom123-dev
          python3-netcdf4
          python3-xarray python3-matplotlib"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
echo "cohort setup: installing$missing"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
