#!/usr/bin/env bash
# Builds the Linux binary against an old glibc, so the packages run on older distributions:
# a binary linked on the build machine needs that machine's glibc (2.34 or newer on any current
# one), which leaves out Ubuntu 20.04, Debian 11 and RHEL 8. cargo-zigbuild links with zig
# against the symbols of glibc $GITLAB_FILE_MCP_GLIBC instead (docs/development.md#releases).
# The release pipeline (through scripts/dist.sh) and .ci/run both build with this script.
#
#   scripts/glibc-build.sh [--release]   prints the binary's path on stdout (cargo's go to stderr)
#   GITLAB_FILE_MCP_GLIBC=2.17    the glibc to link against (default 2.17, manylinux2014)
#   GITLAB_FILE_MCP_TARGET=triple a *-linux-gnu target (default: rustc's host)
#
# Needs python3: zig and cargo-zigbuild come from PyPI into a venv cached outside the clone
# (python3-venv comes from apt where it is missing, as scripts/check-dist.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."

GLIBC=${GITLAB_FILE_MCP_GLIBC:-2.17}
TARGET=${GITLAB_FILE_MCP_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}
case "$TARGET" in
  *-linux-gnu) ;;
  *) echo "glibc-build.sh: $TARGET is not a *-linux-gnu target" >&2; exit 2 ;;
esac
case "${1:-}" in
  "") PROFILE=debug ;;
  --release) PROFILE=release ;;
  *) echo "glibc-build.sh: takes only --release, not $*" >&2; exit 2 ;;
esac

VENV=${HOME:-/root}/.cache/gitlab-file-mcp/zig
if [ ! -x "$VENV/bin/cargo-zigbuild" ]; then # (its output to stderr: stdout is the path)
  python3 -c 'import venv, ensurepip' 2>/dev/null ||
    { apt-get update -qq && apt-get install -y -qq python3-venv; }
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    cargo-zigbuild==0.24.1 ziglang==0.17.1
fi >&2

# cargo-zigbuild finds zig through `python3 -m ziglang`, the venv's python3 first on PATH.
PATH="$VENV/bin:$PATH" cargo zigbuild --locked --target "$TARGET.$GLIBC" "$@" >&2
echo "${CARGO_TARGET_DIR:-target}/$TARGET/$PROFILE/gitlab-file-mcp"
