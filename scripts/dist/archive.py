"""The plain archive `gitlab-file-mcp-<version>-<target-triple>.tar.gz`: one folder with the
binary, README.md and LICENSE, for whoever installs by hand (or by `cargo binstall`).

Byte-reproducible: the same inputs give the same archive (entries in a fixed order, owner 0,
modes 755/644, every time `SOURCE_DATE_EPOCH` or 1980-01-01 as in the wheel and the bundle,
and a gzip header without a name or time, as `gzip -n` writes).

Usage: archive.py BINARY VERSION TRIPLE REPO_ROOT OUT_DIR
"""

import gzip
import os
import sys
import tarfile

import platform_names

EPOCH_1980 = 315532800  # 1980-01-01T00:00:00Z, the zip formats' earliest time


def build(binary, version, triple, root, out_dir) -> str:
    exe = platform_names.platform(triple).exe
    top = f"gitlab-file-mcp-{version}-{triple}"
    path = os.path.join(out_dir, f"{top}.tar.gz")
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH") or EPOCH_1980)
    entries = sorted([
        (f"{top}/{exe}", binary, 0o755),
        (f"{top}/README.md", os.path.join(root, "README.md"), 0o644),
        (f"{top}/LICENSE", os.path.join(root, "LICENSE"), 0o644),
    ])
    with open(path, "wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, source, mode in entries:
            info = tar.gettarinfo(source, name)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mode = mode
            info.mtime = mtime
            with open(source, "rb") as f:
                tar.addfile(info, f)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__.strip().splitlines()[-1])
    try:
        print(build(*sys.argv[1:]))
    except (OSError, platform_names.UnknownTarget) as e:
        sys.exit(f"archive.py: {e}")
