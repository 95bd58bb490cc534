#!/usr/bin/env bash
# Builds the container image (Containerfile, FROM scratch) from the binary of a dist/ archive:
# assembles a root file system with the binary, the shared libraries ldd says it needs and the CA
# bundle, then `podman build`s it for the binary's own architecture (`--platform linux/ARCH`,
# read from the binary's header by scripts/dist/target.py). Linux targets only (the image's
# binary runs on its kernel), and on a machine of the binary's architecture: ldd runs the
# binary's loader, and the libraries copied are this machine's, so the release pipeline builds
# each architecture's image on that architecture's runner.
#
#   scripts/image.sh dist/gitlab-file-mcp-<version>-<triple>.tar.gz [TAG]
#   PODMAN="podman …"   the podman command (default: what scripts/podman.sh finds, podman with
#                       the OCI runtime it has)
set -euo pipefail
ARCHIVE=$(realpath "${1:?usage: scripts/image.sh dist/gitlab-file-mcp-VERSION-TRIPLE.tar.gz [TAG]}")
cd "$(dirname "$0")/.."
TAG=${2:-gitlab-file-mcp:latest}
PODMAN=${PODMAN:-$(scripts/podman.sh)}
CA=/etc/ssl/certs/ca-certificates.crt
[ -f "$CA" ] || { echo "image.sh: no CA bundle at $CA (apt-get install ca-certificates)" >&2; exit 2; }

ROOTFS=$(mktemp -d)
trap 'rm -rf "$ROOTFS"' EXIT
mkdir -p "$ROOTFS/usr/local/bin" "$ROOTFS/etc/ssl/certs" "$ROOTFS/tmp"
tar -xzf "$ARCHIVE" -C "$ROOTFS/usr/local/bin" --strip-components=1 --wildcards '*/gitlab-file-mcp'
BINARY="$ROOTFS/usr/local/bin/gitlab-file-mcp"

TRIPLE=$(python3 scripts/dist/target.py "$BINARY")
case "$TRIPLE" in
  x86_64-unknown-linux-gnu) MACHINE=x86_64 ARCH=amd64 ;;
  aarch64-unknown-linux-gnu) MACHINE=aarch64 ARCH=arm64 ;;
  *) echo "image.sh: the binary is for $TRIPLE; images are built for Linux only" >&2; exit 2 ;;
esac
if [ "$(uname -m)" != "$MACHINE" ]; then
  echo "image.sh: the binary is for $MACHINE and this machine is $(uname -m): build its image on" \
    "an $MACHINE machine (ldd runs the binary's loader, and the libraries copied are this machine's)" >&2
  exit 2
fi

cp "$CA" "$ROOTFS/etc/ssl/certs/"
# Every library the binary loads (and the loader), at the path the binary looks for it.
ldd "$BINARY" | grep -o '/[^ ]*' | while read -r lib; do
  mkdir -p "$ROOTFS$(dirname "$lib")"
  cp -L "$lib" "$ROOTFS$lib"
done
chmod 1777 "$ROOTFS/tmp"
# shellcheck disable=SC2086 # PODMAN is a command with its options
$PODMAN build --quiet --platform "linux/$ARCH" -f "$PWD/Containerfile" -t "$TAG" "$ROOTFS"
