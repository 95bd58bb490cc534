"""The npm packages, as directories for `npm pack` (the esbuild/biome pattern).

`gitlab-file-mcp`: the launcher packaging/npm/bin/gitlab-file-mcp.js and one optional
dependency per platform; `gitlab-file-mcp-<os>-<cpu>`: this platform's binary, with the
os/cpu/libc fields that make npm install it only where it runs. `mcpName` is what the MCP
Registry checks to verify that the npm package belongs to the server.json entry.

Usage: npm.py BINARY VERSION TRIPLE MCP_NAME REPO_ROOT OUT_DIR
Prints the two package directories.
"""

import json
import os
import shutil
import sys

import platform_names

DESCRIPTION = "MCP server that reads GitLab repository files in line windows, with searches and outlines"


def common(version: str, repository: str) -> dict:
    return {
        "version": version,
        "license": "MIT",
        "repository": {"type": "git", "url": f"git+{repository}.git"},
        "homepage": repository,
    }


def main_package(version, mcp_name, repository) -> dict:
    return {
        "name": "gitlab-file-mcp",
        **common(version, repository),
        "description": DESCRIPTION,
        "keywords": ["mcp", "gitlab", "model-context-protocol", "mcp-server"],
        "mcpName": mcp_name,
        "bin": {"gitlab-file-mcp": "bin/gitlab-file-mcp.js"},
        "files": ["bin/", "README.md", "LICENSE"],
        "engines": {"node": ">=18"},
        "optionalDependencies": {
            f"gitlab-file-mcp-{p.npm_suffix}": version for p in platform_names.PLATFORMS
        },
    }


def platform_package(version, triple, repository) -> dict:
    p = platform_names.platform(triple)
    package = {
        "name": f"gitlab-file-mcp-{p.npm_suffix}",
        **common(version, repository),
        "description": f"The {p.triple} binary of gitlab-file-mcp (installed by gitlab-file-mcp)",
        "os": [p.npm_os],
        "cpu": [p.npm_cpu],
        "files": ["bin/", "LICENSE"],
        "preferUnplugged": True,
    }
    if p.npm_libc:
        package["libc"] = [p.npm_libc]
    return package


def write(directory: str, package: dict, files: dict) -> None:
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(os.path.join(directory, "bin"))
    with open(os.path.join(directory, "package.json"), "w") as f:
        json.dump(package, f, indent=2)
        f.write("\n")
    for target, (source, mode) in files.items():
        shutil.copyfile(source, os.path.join(directory, target))
        os.chmod(os.path.join(directory, target), mode)


def build(binary, version, triple, mcp_name, root, out_dir):
    with open(os.path.join(root, "Cargo.toml")) as f:
        repository = next(l.split('"')[1] for l in f if l.startswith("repository"))
    p = platform_names.platform(triple)
    license_file = (os.path.join(root, "LICENSE"), 0o644)
    main_dir = os.path.join(out_dir, "gitlab-file-mcp")
    write(main_dir, main_package(version, mcp_name, repository), {
        "bin/gitlab-file-mcp.js": (os.path.join(root, "packaging/npm/bin/gitlab-file-mcp.js"), 0o755),
        "README.md": (os.path.join(root, "packaging/README.md"), 0o644),
        "LICENSE": license_file,
    })
    platform_dir = os.path.join(out_dir, f"gitlab-file-mcp-{p.npm_suffix}")
    write(platform_dir, platform_package(version, triple, repository), {
        f"bin/{p.exe}": (binary, 0o755),
        "LICENSE": license_file,
    })
    return main_dir, platform_dir


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__.strip().splitlines()[-2])
    try:
        print("\n".join(build(*sys.argv[1:])))
    except (OSError, StopIteration, platform_names.UnknownTarget) as e:
        sys.exit(f"npm.py: {e or 'no repository = in Cargo.toml'}")
