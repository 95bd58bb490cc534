"""A Python wheel whose console command `gitlab-file-mcp` is the Rust binary itself.

As ruff and uv ship theirs (maturin's `bin` bindings): the binary sits in
`<name>-<version>.data/scripts/`, which pip and uv install into the environment's bin
directory unchanged, so `uvx gitlab-file-mcp` runs the binary directly (stdin, stdout,
stderr and the exit code are the binary's own; no Python runs). Built by hand, without
maturin, since there is nothing to compile: a wheel is a zip with METADATA, WHEEL and RECORD.

Usage: wheel.py BINARY VERSION TRIPLE README LICENSE OUT_DIR
"""

import base64
import hashlib
import os
import sys
import zipfile

import elf
import platform_names

DIST = "gitlab_file_mcp"  # the distribution name, normalised (PEP 427)
SUMMARY = "MCP server that reads GitLab repository files in line windows, with searches and outlines"


def tag(binary: str, triple: str) -> str:
    p = platform_names.platform(triple)
    if "{glibc}" in p.wheel_tag:
        return p.wheel_tag.format(glibc=elf.manylinux_version(binary))
    return p.wheel_tag


def metadata(version: str, readme: str) -> str:
    head = [
        "Metadata-Version: 2.1",
        "Name: gitlab-file-mcp",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
        "License: MIT",
        "Keywords: mcp,gitlab,model-context-protocol",
        "Classifier: License :: OSI Approved :: MIT License",
        "Classifier: Programming Language :: Rust",
        "Requires-Python: >=3.8",
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(head) + "\n\n" + readme


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build(binary, version, triple, readme_path, license_path, out_dir) -> str:
    platform_tag = tag(binary, triple)
    exe = platform_names.platform(triple).exe
    info = f"{DIST}-{version}.dist-info"
    with open(binary, "rb") as f:
        binary_bytes = f.read()
    with open(readme_path, encoding="utf-8") as f:
        readme = f.read()
    with open(license_path, "rb") as f:
        license_bytes = f.read()
    wheel = (
        "Wheel-Version: 1.0\nGenerator: gitlab-file-mcp scripts/dist/wheel.py\n"
        f"Root-Is-Purelib: false\nTag: py3-none-{platform_tag}\n"
    )
    files = [
        (f"{DIST}-{version}.data/scripts/{exe}", binary_bytes, 0o755),
        (f"{info}/METADATA", metadata(version, readme).encode(), 0o644),
        (f"{info}/WHEEL", wheel.encode(), 0o644),
        (f"{info}/LICENSE", license_bytes, 0o644),
    ]
    record = "\n".join([record_line(n, d) for n, d, _ in files] + [f"{info}/RECORD,,", ""])
    files.append((f"{info}/RECORD", record.encode(), 0o644))
    path = os.path.join(out_dir, f"{DIST}-{version}-py3-none-{platform_tag}.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data, mode in files:
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__.strip().splitlines()[-1])
    try:
        print(build(*sys.argv[1:]))
    except (OSError, elf.ElfError, platform_names.UnknownTarget) as e:
        sys.exit(f"wheel.py: {e}")
