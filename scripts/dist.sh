#!/usr/bin/env bash
# Builds every package of gitlab-file-mcp for one target into dist/ (docs/development.md#releases):
# the Python wheel, the npm packages (main + this platform's), the MCP Bundle, the plain archive,
# and SHA256SUMS over them; nothing else is left in dist/. The release pipeline (.gitlab-ci.yml)
# runs this same script on each target's runner; scripts/check-dist.sh runs it in CI on the debug
# binary and installs the results. The packages are byte-reproducible: the same binary gives the
# same SHA256SUMS.
#
#   GITLAB_FILE_MCP_BINARY=/path  package this binary instead of building one; its target is read
#                                 from its own header (scripts/dist/target.py): no Rust needed
#   GITLAB_FILE_MCP_TARGET=triple the target to build for (default: rustc's host); with a given
#                                 binary, checked against what its header says
#   GITLAB_FILE_MCP_GLIBC=2.17    the glibc a Linux build links against (scripts/glibc-build.sh);
#                                 2.17 unless set, empty for the build machine's own
#   GITLAB_FILE_MCP_DIST=dir      where to write (default: dist; emptied first)
#
# Packaging needs python3 (standard library only), npm (for `npm pack`) and sha256sum; building
# needs Rust as well.
set -euo pipefail
export LC_ALL=C # one order for globs and SHA256SUMS, whatever the locale
cd "$(dirname "$0")/.."
ROOT=$PWD
py() { python3 "$ROOT/scripts/dist/$1" "${@:2}"; }

VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
MCP_NAME=$(python3 -c 'import json,sys; print(json.load(open("server.json"))["name"])')
OUT=${GITLAB_FILE_MCP_DIST:-dist}

if [ -n "${GITLAB_FILE_MCP_BINARY:-}" ]; then
  BINARY=$GITLAB_FILE_MCP_BINARY
  [ -f "$BINARY" ] || { echo "dist.sh: no binary at $BINARY" >&2; exit 2; }
  TARGET=$(py target.py "$BINARY")
  if [ -n "${GITLAB_FILE_MCP_TARGET:-}" ] && [ "$GITLAB_FILE_MCP_TARGET" != "$TARGET" ]; then
    echo "dist.sh: GITLAB_FILE_MCP_TARGET is $GITLAB_FILE_MCP_TARGET, but $BINARY is for $TARGET" >&2
    exit 2
  fi
else
  TARGET=${GITLAB_FILE_MCP_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}
  GLIBC=${GITLAB_FILE_MCP_GLIBC-2.17}
  if [ -n "$GLIBC" ] && [[ $TARGET == *-linux-gnu ]]; then
    BINARY=$(GITLAB_FILE_MCP_GLIBC=$GLIBC GITLAB_FILE_MCP_TARGET=$TARGET scripts/glibc-build.sh --release)
  else
    cargo build --release --locked --target "$TARGET"
    BINARY="${CARGO_TARGET_DIR:-target}/$TARGET/release/gitlab-file-mcp"
    case "$TARGET" in *windows*) BINARY="$BINARY.exe" ;; esac
  fi
fi
[ -x "$BINARY" ] || { echo "dist.sh: no executable binary at $BINARY" >&2; exit 2; }

# The npm package directories are assembled outside dist/, which holds only what is published.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
rm -rf "$OUT" && mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)

py wheel.py "$BINARY" "$VERSION" "$TARGET" packaging/README.md LICENSE "$OUT" >/dev/null
while read -r dir; do
  (cd "$dir" && npm pack --silent --pack-destination "$OUT" >/dev/null)
done < <(py npm.py "$BINARY" "$VERSION" "$TARGET" "$MCP_NAME" "$ROOT" "$WORK/npm")
py bundle.py "$BINARY" "$VERSION" "$TARGET" "$ROOT" "$OUT" >/dev/null
py archive.py "$BINARY" "$VERSION" "$TARGET" "$ROOT" "$OUT" >/dev/null

(cd "$OUT" && sha256sum -- *.whl *.tgz *.mcpb *.tar.gz > SHA256SUMS)
echo "dist.sh: gitlab-file-mcp $VERSION for $TARGET in $OUT:"
(cd "$OUT" && ls -l -- *.whl *.tgz *.mcpb *.tar.gz SHA256SUMS | awk '{printf "  %10d  %s\n", $5, $9}')
