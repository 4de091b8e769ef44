"""Writes a damaged copy of a part of a run (cohort run --members A:B), for test_sidecar.sh:
every group, dimension, variable and attribute of the part, but for one of these damages:

  narrow-C    C has a dimension x2 of 17 points in place of x (C is (members, 17))
  no-C        C is left out
  member      the member coordinate holds garbage (-5, 2^62, ...)
  arithmetic  no cohort_arithmetic attribute, as a part made by cohort 0.1 has none

Usage: damage_part.py DAMAGE PART.nc OUT.nc  (Debian's /usr/bin/python3 with python3-netcdf4)
"""
import sys

import netCDF4
import numpy as np


def copy_group(src, dst, damage):
    dst.setncatts({a: src.getncattr(a) for a in src.ncattrs()
                   if not (damage == "arithmetic" and a == "cohort_arithmetic")})
    for name, dim in src.dimensions.items():
        dst.createDimension(name, None if dim.isunlimited() else len(dim))
    if damage == "narrow-C" and "C" in src.variables:
        dst.createDimension("x2", 17)
    for name, var in src.variables.items():
        if damage == "no-C" and name == "C":
            continue
        dims = var.dimensions
        data = var[...]
        if damage == "narrow-C" and name == "C":
            dims = dims[:-1] + ("x2",)
            data = data[..., :17]
        if damage == "member" and name == "member":
            data = np.array(data, dtype=np.int64)
            data[0], data[-1] = -5, 2**62
        fill = var.getncattr("_FillValue") if "_FillValue" in var.ncattrs() else None
        out = dst.createVariable(name, var.datatype, dims, fill_value=fill)
        out.setncatts({a: var.getncattr(a) for a in var.ncattrs() if a != "_FillValue"})
        out[...] = data
    for name, group in src.groups.items():
        copy_group(group, dst.createGroup(name), damage)


def main():
    damage, part, out = sys.argv[1:4]
    if damage not in ("narrow-C", "no-C", "member", "arithmetic"):
        sys.exit(f"damage_part.py: unknown damage {damage}")
    with netCDF4.Dataset(part) as src, netCDF4.Dataset(out, "w", format="NETCDF4") as dst:
        src.set_auto_mask(False)
        copy_group(src, dst, damage)


if __name__ == "__main__":
    main()
