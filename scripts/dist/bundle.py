"""The MCP Bundle (`.mcpb`, what Claude Desktop installs with one click): a zip holding
manifest.json and the binary, which the client starts over stdio with the GitLab URL and
token the user typed in its settings (the token is marked sensitive, so the client keeps it
in the system's secret store and never shows it).

Usage: bundle.py BINARY VERSION TRIPLE REPO_ROOT OUT_DIR
"""

import json
import os
import sys
import zipfile

import platform_names

MANIFEST_VERSION = "0.3"  # @anthropic-ai/mcpb 2.x validates 0.1 to 0.4; 0.4 only adds `uv` servers


def first_sentence(text: str) -> str:
    return text.split(". ")[0].rstrip(".") + "."


def manifest(version, triple, repository, tools) -> dict:
    p = platform_names.platform(triple)
    binary = f"server/{p.exe}"
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": "gitlab-file-mcp",
        "display_name": "GitLab files",
        "version": version,
        "description": "Read files of GitLab repositories in line windows, search them and outline them",
        "author": {"name": "gitlab-file-mcp contributors", "url": repository},
        "repository": {"type": "git", "url": repository},
        "homepage": repository,
        "license": "MIT",
        "keywords": ["gitlab", "files", "repository"],
        "server": {
            "type": "binary",
            "entry_point": binary,
            "mcp_config": {
                "command": "${__dirname}/" + binary,
                "args": [],
                "env": {
                    "GITLAB_URL": "${user_config.gitlab_url}",
                    "GITLAB_TOKEN": "${user_config.gitlab_token}",
                },
            },
        },
        "tools": [{"name": t["name"], "description": first_sentence(t["description"])} for t in tools],
        "compatibility": {"platforms": [p.mcpb_platform]},
        "user_config": {
            "gitlab_url": {
                "type": "string",
                "title": "GitLab URL",
                "description": "Base URL of your GitLab, with its relative root if any (https://gitlab.example.com)",
                "default": "https://gitlab.com",
                "required": True,
            },
            "gitlab_token": {
                "type": "string",
                "title": "GitLab token",
                "description": "A token with read_api (read_repository too for private projects); empty for public projects only",
                "sensitive": True,
                "required": False,
                # An optional field left empty must still be filled: without a default, a host
                # may pass the placeholder `${user_config.gitlab_token}` on as the token itself.
                "default": "",
            },
        },
    }


def build(binary, version, triple, root, out_dir) -> str:
    with open(os.path.join(root, "Cargo.toml")) as f:
        repository = next(l.split('"')[1] for l in f if l.startswith("repository"))
    with open(os.path.join(root, "tests/snapshots/tools_list.json")) as f:
        tools = json.load(f)
    m = manifest(version, triple, repository, tools)
    path = os.path.join(out_dir, f"gitlab-file-mcp-{version}-{triple}.mcpb")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        def add(name, data, mode):
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
        add("manifest.json", json.dumps(m, indent=2) + "\n", 0o644)
        with open(binary, "rb") as f:
            add(m["server"]["entry_point"], f.read(), 0o755)
        with open(os.path.join(root, "LICENSE"), "rb") as f:
            add("LICENSE", f.read(), 0o644)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__.strip().splitlines()[-1])
    try:
        print(build(*sys.argv[1:]))
    except (OSError, StopIteration, ValueError, platform_names.UnknownTarget) as e:
        sys.exit(f"bundle.py: {e or 'no repository = in Cargo.toml'}")
