#!/usr/bin/env bash
# Builds the container image (Containerfile, FROM scratch) from the binary of a dist/ archive:
# assembles a root file system with the binary, the shared libraries ldd says it needs and the CA
# bundle, then `podman build`s it. Linux targets only (the image's binary runs on its kernel).
#
#   scripts/image.sh dist/gitlab-file-mcp-<version>-<triple>.tar.gz [TAG]
# Podman runs as root here with `--runtime runc` (PODMAN="podman --runtime runc" by default).
set -euo pipefail
cd "$(dirname "$0")/.."
ARCHIVE=${1:?usage: scripts/image.sh dist/gitlab-file-mcp-VERSION-TRIPLE.tar.gz [TAG]}
TAG=${2:-gitlab-file-mcp:latest}
PODMAN=${PODMAN:-podman --runtime runc}
CA=/etc/ssl/certs/ca-certificates.crt
[ -f "$CA" ] || { echo "image.sh: no CA bundle at $CA (apt-get install ca-certificates)" >&2; exit 2; }

ROOTFS=$(mktemp -d)
trap 'rm -rf "$ROOTFS"' EXIT
mkdir -p "$ROOTFS/usr/local/bin" "$ROOTFS/etc/ssl/certs" "$ROOTFS/tmp"
tar -xzf "$ARCHIVE" -C "$ROOTFS/usr/local/bin" --strip-components=1 --wildcards '*/gitlab-file-mcp'
BINARY="$ROOTFS/usr/local/bin/gitlab-file-mcp"
cp "$CA" "$ROOTFS/etc/ssl/certs/"
# Every library the binary loads (and the loader), at the path the binary looks for it.
ldd "$BINARY" | grep -o '/[^ ]*' | while read -r lib; do
  mkdir -p "$ROOTFS$(dirname "$lib")"
  cp -L "$lib" "$ROOTFS$lib"
done
chmod 1777 "$ROOTFS/tmp"
$PODMAN build --quiet -f "$PWD/Containerfile" -t "$TAG" "$ROOTFS"
