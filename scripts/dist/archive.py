"""The plain archive `gitlab-file-mcp-<version>-<target-triple>.tar.gz`: one folder with the
binary, README.md and LICENSE, for whoever installs by hand (or by `cargo binstall`).

Usage: archive.py BINARY VERSION TRIPLE REPO_ROOT OUT_DIR
"""

import os
import sys
import tarfile

import platform_names


def build(binary, version, triple, root, out_dir) -> str:
    exe = platform_names.platform(triple).exe
    top = f"gitlab-file-mcp-{version}-{triple}"
    path = os.path.join(out_dir, f"{top}.tar.gz")

    def normalise(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    with tarfile.open(path, "w:gz") as tar:
        tar.add(binary, f"{top}/{exe}", filter=normalise)
        tar.add(os.path.join(root, "README.md"), f"{top}/README.md", filter=normalise)
        tar.add(os.path.join(root, "LICENSE"), f"{top}/LICENSE", filter=normalise)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__.strip().splitlines()[-1])
    try:
        print(build(*sys.argv[1:]))
    except (OSError, platform_names.UnknownTarget) as e:
        sys.exit(f"archive.py: {e}")
