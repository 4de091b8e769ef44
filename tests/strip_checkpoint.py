"""Removes the blobs whose names start with PREFIX from a cohort checkpoint, as a cohort that never
wrote them would have left it (ensemble/io/checkpoint.h's layout: "COHORTCK", a uint32 version,
blobs of a 64-byte NUL-padded name, a uint64 length and the bytes, then "#end" and the FNV-1a hash
of everything before it, taken over 64-bit words and then the tail's bytes, piece by piece as the
writer fed it). The hash is recomputed, so the checkpoint stays valid.

Exit 0 with the count of blobs removed on stdout, 1 where the file is not such a checkpoint.
Usage: strip_checkpoint.py CHECKPOINT PREFIX
"""
import struct
import sys

FNV_OFFSET, FNV_PRIME, MASK = 14695981039346656037, 1099511628211, (1 << 64) - 1
NAME_BYTES = 64


def fnv1a(h, data):
    words = len(data) // 8
    for (word,) in struct.iter_unpack("<Q", data[: 8 * words]):
        h = ((h ^ word) * FNV_PRIME) & MASK
    for byte in data[8 * words:]:
        h = ((h ^ byte) * FNV_PRIME) & MASK
    return h


def main(path, prefix):
    data = open(path, "rb").read()
    if data[:8] != b"COHORTCK" or data[-16:-8] != b"#end\0\0\0\0":
        print(f"{path}: not a cohort checkpoint")
        return 1
    at, kept, removed = 12, [], 0
    while at < len(data) - 16:
        name = data[at: at + NAME_BYTES]
        (length,) = struct.unpack("<Q", data[at + NAME_BYTES: at + NAME_BYTES + 8])
        end = at + NAME_BYTES + 8 + length
        if name.rstrip(b"\0").decode().startswith(prefix):
            removed += 1
        else:
            kept.append((name, data[at + NAME_BYTES: at + NAME_BYTES + 8], data[at + NAME_BYTES + 8: end]))
        at = end
    h = fnv1a(fnv1a(FNV_OFFSET, data[:8]), data[8:12])
    out = [data[:12]]
    for name, length, body in kept:
        h = fnv1a(fnv1a(fnv1a(h, name), length), body)
        out += [name, length, body]
    h = fnv1a(h, b"#end\0\0\0\0")
    out += [b"#end\0\0\0\0", struct.pack("<Q", h)]
    with open(path, "wb") as f:
        f.write(b"".join(out))
    print(removed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
