#!/usr/bin/env bash
# The packages, installed and run as a user would (run by .ci/run before `cargo test`): packages
# the debug binary `cargo build` made (stripped; CI builds no release binary) with scripts/dist.sh,
# then checks SHA256SUMS, installs the wheel into a fresh venv and the npm tarballs into a fresh
# prefix (offline), runs `--version` and an MCP stdio session listing the tools through each
# installed command and through npx, validates the bundle's manifest with `mcpb validate` and
# server.json against the MCP Registry's schema, and builds and runs the container image
# (`--version`, then GET /healthz). Each step prints its time.
#
#   scripts/check-dist.sh [BINARY]    default: $CARGO_TARGET_DIR/debug/gitlab-file-mcp
#   GITLAB_FILE_MCP_GLIBC=2.17        the glibc BINARY was linked against: the wheel's tag must
#                                     say it (manylinux_2_17), so no newer glibc symbol slipped in
# Tools come from the registries into caches outside the clone: @anthropic-ai/mcpb and ajv.
set -euo pipefail
cd "$(dirname "$0")/.."
BINARY=${1:-${CARGO_TARGET_DIR:-target}/debug/gitlab-file-mcp}
CACHE=${HOME:-/root}/.cache/gitlab-file-mcp
MCPB_PREFIX=$CACHE/npm-mcpb
AJV_PREFIX=$CACHE/npm
LIMITS="--ulimit nofile=4096:4096 --ulimit nproc=4096:4096"
WORK=$(mktemp -d)
IMAGE=localhost/gitlab-file-mcp-check:$$
PODMAN=${PODMAN:-} # set below, once podman is installed
cleanup() {
  if [ -n "$PODMAN" ]; then
    $PODMAN rm -f "gitlab-file-mcp-check-$$" >/dev/null 2>&1 || true
    $PODMAN rmi -f "$IMAGE" >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

step_start=0
step() { step_start=$(date +%s.%N); printf 'check-dist: %s ... ' "$1"; }
done_step() { printf 'ok (%.1f s)\n' "$(echo "$(date +%s.%N) - $step_start" | bc)"; }
fail() { echo "FAILED: $*" >&2; exit 1; }
# The tools the server publishes, as the tools/list snapshot has them.
TOOLS=$(python3 -c 'import json; print("\n".join(t["name"] for t in json.load(open("tests/snapshots/tools_list.json"))))')
expect_tools() { # the tools an MCP session through "$@" lists
  local got
  got=$(python3 scripts/dist/mcp_smoke.py "$@") || fail "MCP session through $*"
  [ "$got" = "$TOOLS" ] || fail "$* listed: $got (the snapshot: $TOOLS)"
}
VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)

step "prerequisites"
if ! command -v bc >/dev/null || ! command -v podman >/dev/null ||
  ! { command -v crun || command -v runc; } >/dev/null; then
  apt-get update -qq && apt-get install -y -qq bc podman runc >/dev/null
fi
PODMAN=${PODMAN:-$(scripts/podman.sh)} # podman with the OCI runtime this machine has
python3 -c 'import venv, ensurepip' 2>/dev/null ||
  { apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null; }
[ -f "$MCPB_PREFIX/node_modules/@anthropic-ai/mcpb/package.json" ] ||
  npm install --prefix "$MCPB_PREFIX" --no-audit --no-fund --silent @anthropic-ai/mcpb@2.1.2
[ -f "$AJV_PREFIX/node_modules/ajv-formats/package.json" ] ||
  npm install --prefix "$AJV_PREFIX" --no-audit --no-fund --silent ajv@8 ajv-formats@3
done_step

step "scripts/dist.sh on the stripped binary"
[ -x "$BINARY" ] || fail "no binary at $BINARY (cargo build first)"
strip -o "$WORK/gitlab-file-mcp" "$BINARY"
GITLAB_FILE_MCP_BINARY="$WORK/gitlab-file-mcp" GITLAB_FILE_MCP_DIST="$WORK/dist" \
  scripts/dist.sh >/dev/null
DIST=$WORK/dist
if [ -n "${GITLAB_FILE_MCP_GLIBC:-}" ]; then
  compgen -G "$DIST/*-manylinux_${GITLAB_FILE_MCP_GLIBC/./_}_*.whl" >/dev/null ||
    fail "the wheel is not tagged manylinux_${GITLAB_FILE_MCP_GLIBC/./_}: $(ls "$DIST"/*.whl)"
fi
done_step

step "sha256sum -c SHA256SUMS"
(cd "$DIST" && sha256sum --quiet -c SHA256SUMS) || fail "checksums"
done_step

step "wheel into a fresh venv"
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet --no-index --disable-pip-version-check "$DIST"/*.whl
[ "$("$WORK/venv/bin/gitlab-file-mcp" --version)" = "gitlab-file-mcp $VERSION" ] || fail "venv --version"
expect_tools "$WORK/venv/bin/gitlab-file-mcp"
done_step

step "npm tarballs into a fresh prefix (offline)"
npm install --global --prefix "$WORK/npm" --offline --no-audit --no-fund --silent \
  "$DIST"/gitlab-file-mcp-linux-*.tgz "$DIST/gitlab-file-mcp-$VERSION.tgz"
[ "$("$WORK/npm/bin/gitlab-file-mcp" --version)" = "gitlab-file-mcp $VERSION" ] || fail "npm --version"
expect_tools "$WORK/npm/bin/gitlab-file-mcp"
done_step

step "npx from the tarballs (offline)"
export npm_config_cache="$WORK/npm-cache"
expect_tools npx --yes --offline --package "$DIST"/gitlab-file-mcp-linux-*.tgz \
  --package "$DIST/gitlab-file-mcp-$VERSION.tgz" gitlab-file-mcp
unset npm_config_cache
done_step

step "mcpb validate, and the bundle's binary runs"
mkdir "$WORK/mcpb" && (cd "$WORK/mcpb" && python3 -m zipfile -e "$DIST"/*.mcpb .)
node "$MCPB_PREFIX/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js" validate "$WORK/mcpb/manifest.json" \
  >"$WORK/mcpb.log" 2>&1 || { cat "$WORK/mcpb.log" >&2; fail "mcpb validate"; }
chmod +x "$WORK/mcpb/server/gitlab-file-mcp" # python's zipfile drops the mode; Claude Desktop keeps it
expect_tools "$WORK/mcpb/server/gitlab-file-mcp"
done_step

step "server.json, and the entry a release publishes, against the MCP Registry's schema"
# The release adds one mcpb package per bundle (scripts/dist/registry_entry.py): here, this one.
mkdir -p "$WORK/release/this-target" && cp "$DIST/SHA256SUMS" "$WORK/release/this-target/"
python3 scripts/dist/registry_entry.py server.json "$WORK/release" \
  "https://gitlab.example.com/gitlab-file-mcp/-/releases/v$VERSION/downloads" >"$WORK/entry.json" ||
  fail "registry_entry.py"
for entry in server.json "$WORK/entry.json"; do
  NODE_PATH="$AJV_PREFIX/node_modules" node -e '
    const Ajv = require("ajv"), addFormats = require("ajv-formats"), fs = require("fs");
    // Not strict: the published schema names `valueHint` in an anyOf beside its properties.
    const ajv = new Ajv({ allErrors: true, strict: false }); addFormats(ajv);
    const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[1])));
    if (!validate(JSON.parse(fs.readFileSync(process.argv[2])))) {
      console.error(JSON.stringify(validate.errors, null, 2)); process.exit(1);
    }' tests/fixtures/mcp-registry/server.schema.json "$entry" || fail "$entry"
done
done_step

step "container image: build, --version, GET /healthz"
PODMAN="$PODMAN" scripts/image.sh "$DIST"/gitlab-file-mcp-*.tar.gz "$IMAGE" >/dev/null
# shellcheck disable=SC2086
[ "$($PODMAN run --rm $LIMITS "$IMAGE" --version)" = "gitlab-file-mcp $VERSION" ] || fail "image --version"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# shellcheck disable=SC2086
$PODMAN run -d --name "gitlab-file-mcp-check-$$" $LIMITS -p "127.0.0.1:$PORT:8080" "$IMAGE" >/dev/null
for _ in $(seq 50); do
  [ "$(curl -s -m 2 "http://127.0.0.1:$PORT/healthz" || true)" = ok ] && break
  sleep 0.2
done
[ "$(curl -s -m 2 "http://127.0.0.1:$PORT/healthz")" = ok ] ||
  { $PODMAN logs "gitlab-file-mcp-check-$$" >&2; fail "image /healthz"; }
done_step
echo "check-dist: all packages install and run (gitlab-file-mcp $VERSION)"
