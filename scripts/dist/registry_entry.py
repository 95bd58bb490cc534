"""The MCP Registry entry as a release publishes it: server.json with one `mcpb` package per MCP
Bundle the release built, each named by its download URL and its SHA-256 (which clients check
before installing; the registry wants both, so they can only be written once the bundles exist).

Usage: registry_entry.py SERVER_JSON DIST_DIR BASE_URL
  DIST_DIR   the release's packages: DIST_DIR/<triple>/SHA256SUMS, as the package jobs leave them
  BASE_URL   where the release serves its files: BASE_URL/<file name> (a GitLab release's
             direct asset links, `<project>/-/releases/<tag>/downloads`)
Prints the entry on stdout.
"""

import glob
import json
import os
import sys

USAGE = "Usage: registry_entry.py SERVER_JSON DIST_DIR BASE_URL"


def bundles(dist_dir: str):
    """(file name, sha256) of every .mcpb the SHA256SUMS files under `dist_dir` list, by name."""
    found = {}
    for sums in sorted(glob.glob(os.path.join(dist_dir, "*", "SHA256SUMS"))):
        with open(sums) as f:
            for line in f:
                digest, _, name = line.strip().partition("  ")
                if name.endswith(".mcpb"):
                    found[name] = digest
    return sorted(found.items())


def entry(server: dict, dist_dir: str, base_url: str) -> dict:
    found = bundles(dist_dir)
    if not found:
        raise ValueError(f"no .mcpb in any {dist_dir}/*/SHA256SUMS")
    packages = [p for p in server["packages"] if p["registryType"] != "mcpb"]
    for name, digest in found:
        packages.append({
            "registryType": "mcpb",
            "identifier": f"{base_url.rstrip('/')}/{name}",
            "fileSha256": digest,
            "transport": {"type": "stdio"},
        })
    return {**server, "packages": packages}


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(USAGE)
    try:
        with open(sys.argv[1]) as f:
            server = json.load(f)
        print(json.dumps(entry(server, sys.argv[2], sys.argv[3]), indent=2))
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"registry_entry.py: {e}")
