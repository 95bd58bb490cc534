#!/usr/bin/env bash
# Builds every package of gitlab-file-mcp for one target into dist/ (docs/development.md#releases):
# the Python wheel, the npm packages (main + this platform's), the MCP Bundle, the plain archive,
# and SHA256SUMS over them. The release pipeline (.gitlab-ci.yml) runs this same script on each
# target's runner; scripts/check-dist.sh runs it in CI on the debug binary and installs the results.
#
#   GITLAB_FILE_MCP_BINARY=/path  package this binary instead of building one (cargo build --release)
#   GITLAB_FILE_MCP_GLIBC=2.17    build a Linux binary against that glibc (scripts/glibc-build.sh)
#   GITLAB_FILE_MCP_TARGET=triple the binary's target triple (default: rustc's host)
#   GITLAB_FILE_MCP_DIST=dir      where to write (default: dist)
#
# Needs python3 (standard library only) and npm (for `npm pack`); nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
MCP_NAME=$(python3 -c 'import json,sys; print(json.load(open("server.json"))["name"])')
TARGET=${GITLAB_FILE_MCP_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}
OUT=${GITLAB_FILE_MCP_DIST:-dist}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)

if [ -n "${GITLAB_FILE_MCP_BINARY:-}" ]; then
  BINARY=$GITLAB_FILE_MCP_BINARY
elif [ -n "${GITLAB_FILE_MCP_GLIBC:-}" ]; then
  BINARY=$(GITLAB_FILE_MCP_TARGET=$TARGET scripts/glibc-build.sh --release)
else
  cargo build --release --locked --target "$TARGET"
  BINARY="${CARGO_TARGET_DIR:-target}/$TARGET/release/gitlab-file-mcp"
  case "$TARGET" in *windows*) BINARY="$BINARY.exe" ;; esac
fi
[ -x "$BINARY" ] || { echo "dist.sh: no executable binary at $BINARY" >&2; exit 2; }

rm -rf "$OUT" && mkdir -p "$OUT/work/npm"
py() { python3 "$ROOT/scripts/dist/$1" "${@:2}"; }

py wheel.py "$BINARY" "$VERSION" "$TARGET" packaging/README.md LICENSE "$OUT" >/dev/null
while read -r dir; do
  (cd "$dir" && npm pack --silent --pack-destination "$OUT" >/dev/null)
done < <(py npm.py "$BINARY" "$VERSION" "$TARGET" "$MCP_NAME" "$ROOT" "$OUT/work/npm")
py bundle.py "$BINARY" "$VERSION" "$TARGET" "$ROOT" "$OUT" >/dev/null
py archive.py "$BINARY" "$VERSION" "$TARGET" "$ROOT" "$OUT" >/dev/null

(cd "$OUT" && sha256sum -- *.whl *.tgz *.mcpb *.tar.gz > SHA256SUMS)
echo "dist.sh: gitlab-file-mcp $VERSION for $TARGET in $OUT:"
(cd "$OUT" && ls -l -- *.whl *.tgz *.mcpb *.tar.gz SHA256SUMS | awk '{printf "  %10d  %s\n", $5, $9}')
