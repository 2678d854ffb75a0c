#!/usr/bin/env bash
# scripts/build-image's options for a user's image (issue 34, point 6): each bad one is exit 2 with one
# line naming it and what is allowed, before any build (no lock taken, no podman run, no image made:
# the test needs neither root nor podman). The checks themselves are scripts/image/build-derived --check.
set -euo pipefail
source_dir=${SHARDRUN_SOURCE_DIR:?}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/shardrun-build-image-options.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/project" "$scratch/elsewhere"
echo "tomli-w" >"$scratch/project/requirements.txt"
echo "ENV A=1" >"$scratch/project/extra.dockerfile"
echo "tomli-w" >"$scratch/elsewhere/requirements.txt"
req=$scratch/project/requirements.txt
failures=0

# refused NEEDLE ARGS...: build-image ARGS exits 2, with one line on stderr holding NEEDLE, nothing on stdout.
refused() {
  local needle=$1 status=0
  shift
  # A lock of its own: a build-image that got past the checks would wait here, not on the machine's lock.
  SHARDRUN_BUILD_IMAGE_LOCK=$scratch/lock "$source_dir/scripts/build-image" "$@" >"$scratch/out" 2>"$scratch/err" || status=$?
  local lines
  lines=$(grep -c . "$scratch/err" || true)
  if [[ $status -ne 2 || $lines -ne 1 || -s $scratch/out ]] || ! grep -qF -- "$needle" "$scratch/err"; then
    echo "FAIL: build-image $*: exit $status, want 2 with one line holding '$needle'; stdout:"
    cat "$scratch/out"
    echo "stderr:"
    cat "$scratch/err"
    failures=$((failures + 1))
  else
    echo "ok: build-image $*: $(cat "$scratch/err")"
  fi
}

refused "give --requirements FILE (pip) and/or --dockerfile FILE" --name sweep:1 --aws-region us-east-1
refused "--name NAME[:TAG] names your image" --requirements "$req"
refused "--name 'Sweep:1' is not an image name" --requirements "$req" --name Sweep:1
refused "--name 'sweep:' is not an image name" --requirements "$req" --name sweep:
refused "--requirements $scratch/nothing.txt: no such readable file" --requirements "$scratch/nothing.txt" --name sweep:1
refused "--dockerfile $scratch/nothing: no such readable file" --dockerfile "$scratch/nothing" --name sweep:1
refused "--pip-cert $scratch/nothing.pem: no such readable file" --requirements "$req" --name sweep:1 --pip-cert "$scratch/nothing.pem"
refused "--aws-account '1234' is not an AWS account id (12 digits)" --requirements "$req" --name sweep:1 --aws-account 1234
refused "--aws-region 'useast1' is not an AWS region" --requirements "$req" --name sweep:1 --aws-region useast1
refused "--gcp-region 'Europe-West4' is not a Google Cloud region" --requirements "$req" --name sweep:1 --gcp-region Europe-West4
refused "--gcp-project 'My_Project' is not a project id" --requirements "$req" --name sweep:1 --gcp-project My_Project
refused "--gcp-repository 'Sweeps!' is not an Artifact Registry repository" --requirements "$req" --name sweep:1 --gcp-repository 'Sweeps!'
refused "is outside the context $scratch/project; pass --context" --requirements "$scratch/elsewhere/requirements.txt" \
  --dockerfile "$scratch/project/extra.dockerfile" --name sweep:1 --context "$scratch/project"
refused "--context $scratch/none: not a folder" --requirements "$req" --name sweep:1 --context "$scratch/none"
refused "--from names the image to build yours on" --from localhost/shardrun:src-0
refused "--name needs a value" --requirements "$req" --name
refused "unknown option '--requirement'" --requirement "$req" --name sweep:1

# The ids of the walk-through in docs/launchers/image.md pass the same checks (and --check builds nothing).
if ! out=$("$source_dir/scripts/image/build-derived" --check --requirements "$req" --dockerfile "$scratch/project/extra.dockerfile" \
    --name team/sweep:2024.1 --aws-account 123456789012 --aws-region us-gov-west-1 --gcp-project my-project \
    --gcp-region us-central1 --gcp-repository sweeps 2>&1) || [[ -n $out ]]; then
  echo "FAIL: build-derived --check refused good options: $out"
  failures=$((failures + 1))
fi

[[ $failures -eq 0 ]] || { echo "build_image_options_test: $failures check(s) failed"; exit 1; }
echo "build_image_options_test: passed"
