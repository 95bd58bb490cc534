"""The Rust target triple a built binary is for, read from its own header (pure Python), so that
packaging a given binary needs no Rust toolchain: ELF (Linux: the machine, and the loader that
says glibc or musl), Mach-O (macOS) and PE (Windows).

Usage: target.py BINARY    prints the triple; exits 2 naming what the header says otherwise.
"""

import struct
import sys

import platform_names


class NotATarget(Exception):
    pass


ELF_MACHINES = {62: "x86_64", 183: "aarch64"}
MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "aarch64"}
PE_MACHINES = {0x8664: "x86_64", 0xAA64: "aarch64"}
PT_INTERP = 3


def elf_triple(data: bytes) -> str:
    if data[4] != 2 or data[5] != 1:
        raise NotATarget("only 64-bit little-endian ELF binaries are packaged")
    machine, = struct.unpack_from("<H", data, 0x12)
    cpu = ELF_MACHINES.get(machine)
    if cpu is None:
        raise NotATarget(f"an ELF binary for machine {machine}, which has no packages")
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == PT_INTERP:
            loader = data[p_offset:p_offset + p_filesz].rstrip(b"\0").decode(errors="replace")
            if "musl" in loader:
                raise NotATarget(f"a musl binary (loader {loader}); only glibc Linux binaries are packaged")
            return f"{cpu}-unknown-linux-gnu"
    raise NotATarget("a static ELF binary (no loader named); only glibc Linux binaries are packaged")


def triple(data: bytes) -> str:
    """The triple of the binary whose bytes (at least its headers) are `data`."""
    if data[:4] == b"\x7fELF":
        return elf_triple(data)
    if data[:4] == b"\xcf\xfa\xed\xfe":  # MH_MAGIC_64, little-endian
        cputype, = struct.unpack_from("<I", data, 4)
        if cputype in MACHO_CPUS:
            return f"{MACHO_CPUS[cputype]}-apple-darwin"
        raise NotATarget(f"a Mach-O binary for CPU type {cputype:#x}, which has no packages")
    if data[:4] in (b"\xca\xfe\xba\xbe", b"\xbe\xba\xfe\xca"):
        raise NotATarget("a universal (fat) Mach-O binary; package each architecture's own")
    if data[:2] == b"MZ" and len(data) >= 0x40:
        pe, = struct.unpack_from("<I", data, 0x3C)
        if data[pe:pe + 4] == b"PE\0\0":
            machine, = struct.unpack_from("<H", data, pe + 4)
            if machine in PE_MACHINES:
                return f"{PE_MACHINES[machine]}-pc-windows-msvc"
            raise NotATarget(f"a PE binary for machine {machine:#x}, which has no packages")
    raise NotATarget("not an ELF, Mach-O or PE binary")


def of_file(path: str) -> str:
    """The binary's triple, checked to be one the packages are named for."""
    with open(path, "rb") as f:
        data = f.read(1 << 20)  # headers, program headers and a Linux loader's name lie early
    found = triple(data)
    platform_names.platform(found)
    return found


def self_check() -> None:
    def elf(machine, loader):
        header = bytearray(0x40 + 0x38)
        header[:6] = b"\x7fELF\x02\x01"
        struct.pack_into("<H", header, 0x12, machine)
        struct.pack_into("<Q", header, 0x20, 0x40)
        struct.pack_into("<HH", header, 0x36, 0x38, 1)
        struct.pack_into("<IIQQQQ", header, 0x40, PT_INTERP, 0, len(header), 0, 0, len(loader))
        return bytes(header) + loader

    def pe(machine):
        data = bytearray(0x80)
        data[:2] = b"MZ"
        struct.pack_into("<I", data, 0x3C, 0x40)
        data[0x40:0x44] = b"PE\0\0"
        struct.pack_into("<H", data, 0x44, machine)
        return bytes(data)

    assert triple(elf(62, b"/lib64/ld-linux-x86-64.so.2\0")) == "x86_64-unknown-linux-gnu"
    assert triple(elf(183, b"/lib/ld-linux-aarch64.so.1\0")) == "aarch64-unknown-linux-gnu"
    assert triple(b"\xcf\xfa\xed\xfe" + struct.pack("<I", 0x0100000C)) == "aarch64-apple-darwin"
    assert triple(b"\xcf\xfa\xed\xfe" + struct.pack("<I", 0x01000007)) == "x86_64-apple-darwin"
    assert triple(pe(0x8664)) == "x86_64-pc-windows-msvc"
    for bad in (elf(62, b"/lib/ld-musl-x86_64.so.1\0"), elf(40, b""), b"#!/bin/sh\n", b"\xca\xfe\xba\xbe"):
        try:
            triple(bad)
        except NotATarget:
            continue
        raise AssertionError(bad[:8])


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-check"]:
        self_check()
        print("ok")
    elif len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    else:
        try:
            print(of_file(sys.argv[1]))
        except (OSError, struct.error, NotATarget, platform_names.UnknownTarget) as e:
            print(f"target.py: {sys.argv[1]}: {e}", file=sys.stderr)
            sys.exit(2)
