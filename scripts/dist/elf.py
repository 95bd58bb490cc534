"""The newest glibc version an ELF binary needs, read from its version-needed table (pure Python).

The wheel's manylinux tag must not be below it (PEP 600: manylinux_X_Y runs on glibc >= X.Y), so
it is computed from the binary rather than written by hand. Reads the .gnu.version_r section
(SHT_GNU_verneed) of a 64-bit little-endian ELF and returns the highest GLIBC_X.Y it names.
"""

import re
import struct
import sys

SHT_GNU_VERNEED = 0x6FFFFFFE


class ElfError(Exception):
    pass


def glibc_needed(data: bytes):
    """(major, minor) of the newest GLIBC_ version needed, or None for a binary needing none."""
    if data[:4] != b"\x7fELF":
        raise ElfError("not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise ElfError("only 64-bit little-endian ELF is read")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    newest = None
    for (_, sh_type, _, _, off, size, link, info, _, _) in sections:
        if sh_type != SHT_GNU_VERNEED:
            continue
        strtab_off = sections[link][4]
        pos = off
        for _ in range(info):  # info = number of Verneed entries
            _, cnt, _, aux, nxt = struct.unpack_from("<HHIII", data, pos)
            apos = pos + aux
            for _ in range(cnt):
                _, _, _, name, anext = struct.unpack_from("<IHHII", data, apos)
                end = data.index(b"\0", strtab_off + name)
                m = re.fullmatch(rb"GLIBC_(\d+)\.(\d+)(?:\.\d+)?", data[strtab_off + name:end])
                if m:
                    v = (int(m.group(1)), int(m.group(2)))
                    newest = v if newest is None or v > newest else newest
                apos += anext
            pos += nxt
    return newest


def manylinux_version(path: str) -> str:
    """"X_Y" for the manylinux tag: the newest glibc needed, at least 2_17 (manylinux2014)."""
    with open(path, "rb") as f:
        v = glibc_needed(f.read())
    v = max(v or (2, 17), (2, 17))
    return f"{v[0]}_{v[1]}"


if __name__ == "__main__":
    print(manylinux_version(sys.argv[1]))
