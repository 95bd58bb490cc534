"""The names each package format gives a Rust target triple (pure).

One row per target the release pipeline (.gitlab-ci.yml) builds, and no other (the npm main
package names each row's package as an optional dependency, so a row no job builds would be a
dependency that does not exist; tests/it/contract/packaging.rs compares): the npm platform package's
suffix and its os/cpu/libc fields, the wheel's platform tag (for Linux, the manylinux
version is computed from the binary by elf.py), the MCP Bundle's platform name and the
binary's file name.
"""

import sys
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Platform:
    triple: str
    npm_suffix: str  # gitlab-file-mcp-<suffix>
    npm_os: str
    npm_cpu: str
    npm_libc: Optional[str]
    # The wheel tag; for Linux a template with {glibc} (e.g. "2_17") filled from the ELF.
    wheel_tag: str
    mcpb_platform: str
    exe: str


PLATFORMS = [
    Platform("x86_64-unknown-linux-gnu", "linux-x64", "linux", "x64", "glibc",
             "manylinux_{glibc}_x86_64", "linux", "gitlab-file-mcp"),
    Platform("aarch64-unknown-linux-gnu", "linux-arm64", "linux", "arm64", "glibc",
             "manylinux_{glibc}_aarch64", "linux", "gitlab-file-mcp"),
    Platform("x86_64-apple-darwin", "darwin-x64", "darwin", "x64", None,
             "macosx_10_12_x86_64", "darwin", "gitlab-file-mcp"),
    Platform("aarch64-apple-darwin", "darwin-arm64", "darwin", "arm64", None,
             "macosx_11_0_arm64", "darwin", "gitlab-file-mcp"),
    Platform("x86_64-pc-windows-msvc", "win32-x64", "win32", "x64", None,
             "win_amd64", "win32", "gitlab-file-mcp.exe"),
]


class UnknownTarget(Exception):
    def __str__(self):
        known = ", ".join(p.triple for p in PLATFORMS)
        return f"no packages are named for target '{self.args[0]}'; known targets: {known}"


def platform(triple: str) -> Platform:
    for p in PLATFORMS:
        if p.triple == triple:
            return p
    raise UnknownTarget(triple)


if __name__ == "__main__":
    # Self-check: every name is unique per format.
    for field in ("triple", "npm_suffix", "wheel_tag"):
        values = [getattr(p, field) for p in PLATFORMS]
        assert len(values) == len(set(values)), field
    try:
        print(platform(sys.argv[1]).npm_suffix if len(sys.argv) > 1 else "ok")
    except UnknownTarget as e:
        sys.exit(f"platform_names: {e}")
