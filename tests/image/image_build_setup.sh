#!/usr/bin/env bash
# ctest fixture shardrun_image: scripts/build-image --reuse builds the image of these sources once
# (or takes the one built from them before), before the tests that run containers of it start:
# image_test, image_derived_test and cloud_jobs_image_s3 then reuse it instead of each waiting in
# build-image's lock (or, before it, skipping). Exit 77 with the reason where no image can be built.
set -euo pipefail
source "${SHARDRUN_SOURCE_DIR:?}/tests/image/image_support.sh"
image_skip_unless_possible image_build
start=$(date +%s)
"$SHARDRUN_SOURCE_DIR/scripts/build-image" --reuse
echo "image_build: ready in $(($(date +%s) - start)) s"
