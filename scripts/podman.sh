#!/usr/bin/env bash
# Prints the podman command to run here: `podman` itself when it can run containers with the OCI
# runtime it is configured for, else `podman --runtime PATH` with the first runtime this machine
# has (crun, then runc): a podman whose default runtime is not installed (crun, on a machine that
# has only runc) refuses every command without it. Used by scripts/image.sh and
# scripts/check-dist.sh (PODMAN=... overrides both).
set -euo pipefail
if podman info >/dev/null 2>&1; then
  echo podman
  exit 0
fi
for runtime in crun runc; do
  if path=$(command -v "$runtime") && podman --runtime "$path" info >/dev/null 2>&1; then
    echo "podman --runtime $path"
    exit 0
  fi
done
echo "podman.sh: podman finds no OCI runtime it can use here (install crun or runc)" >&2
exit 2
