# shellcheck shell=bash
# Sourced by the image tests: why one cannot run here (exit 77, ctest: skipped, with the reason).
# image_skip_unless_possible NAME: needs root (rootful podman, debootstrap), podman, and the
# debootstrap of Debian 12 the image's base is made from (scripts/minimal-rootfs waits when another
# test is making it).

image_skip() { echo "$1: SKIPPED: $2"; exit 77; }

image_skip_unless_possible() {
  local name=$1 log
  [[ $(id -u) -eq 0 ]] || image_skip "$name" "needs root (rootful podman, debootstrap)"
  command -v podman >/dev/null 2>&1 || image_skip "$name" "podman is missing; scripts/install-deps installs it"
  if ! log=$("$SHARDRUN_SOURCE_DIR/scripts/minimal-rootfs" 2>&1); then
    image_skip "$name" "debootstrap could not make the Debian 12 base: $log"
  fi
}
