#!/usr/bin/env bash
# ctest fixture debian_rootfs: scripts/minimal-rootfs makes the debootstrap of Debian 12 once, before
# the tests that use it (the image's base, the bundle's chroot) start, so none of them races another
# for it. Exit 77 with the reason where it cannot be made (not root, no debootstrap, no mirror).
set -euo pipefail
[[ $(id -u) -eq 0 ]] || { echo "debian_rootfs: SKIPPED: debootstrap needs root"; exit 77; }
command -v debootstrap >/dev/null 2>&1 || { echo "debian_rootfs: SKIPPED: debootstrap is missing; scripts/install-deps installs it"; exit 77; }
start=$(date +%s)
if ! out=$("${SHARDRUN_SOURCE_DIR:?}/scripts/minimal-rootfs" 2>&1); then
  echo "debian_rootfs: SKIPPED: debootstrap could not make the Debian 12 base: $out"
  exit 77
fi
echo "debian_rootfs: $(tail -n 1 <<<"$out") ready in $(($(date +%s) - start)) s"
