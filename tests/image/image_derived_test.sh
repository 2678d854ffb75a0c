#!/usr/bin/env bash
# Your own image (issue 34, point 6): scripts/build-image --requirements --dockerfile --name builds, on
# the image of these sources (the shardrun_image fixture built it; reused here), an image with one PyPI
# package the shardrun image lacks (tomli-w, from PyPI through the host's network) and a fragment's ENV
# and RUN lines. Checks: the shardrun image cannot import tomli_w and the derived one can; a 2-rank
# `shardrun run` in the derived image has each of its 6 tasks import the package, write TOML with it
# and see the fragment's variable, and the results file (read back with the host's h5py) holds what
# each task wrote; the printed push lines name the ECR and Artifact Registry ids given, with the
# `aws ecr get-login-password | podman login` and `gcloud auth configure-docker` lines; the image's
# name is printed last. Exit 77 (ctest: skipped) with the reason only where no container can run.
# The derived image, every container and the scratch folder are removed, also when a check fails.
set -euo pipefail
source_dir=${SHARDRUN_SOURCE_DIR:?}
source "$source_dir/tests/image/image_support.sh"
image_skip_unless_possible image_derived_test

podman=("$source_dir/scripts/podman-local")
scratch=$(mktemp -d "${TMPDIR:-/tmp}/shardrun-image-derived.XXXXXX")
name=shardrun-derived-test-$$:1
containers=()
cleanup() {
  if [[ ${#containers[@]} -gt 0 ]]; then
    "${podman[@]}" rm -f --ignore "${containers[@]}" >/dev/null 2>&1 || true
  fi
  "${podman[@]}" rmi -f "localhost/$name" >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# ---- the user's project: requirements, a fragment, a job whose tasks import the package
project=$scratch/project
mkdir -p "$project" "$scratch/out"
echo "tomli-w==1.2.0" >"$project/requirements.txt"
cat >"$project/extra.dockerfile" <<'EOF'
ENV SWEEP_GREETING=from-the-fragment
RUN python3 -c "import tomli_w; print('tomli_w', tomli_w.__name__)"
EOF
# tomli_w.dumps(dict(x=3)) is "x = 3\n": 6 characters for each x of one digit. No braces in the
# Python: the job file's {x} is the placeholder.
cat >"$project/job.yaml" <<'EOF'
name: derived
task: exec
sweep:
  x: {range: [0, 6, 1]}
output: {path: /out/derived.h5}
exec:
  argv: [python3, -c, 'import os, json, tomli_w; text = tomli_w.dumps(dict(x={x})); json.dump(dict(toml_length=len(text), greeting=int(os.environ.get("SWEEP_GREETING") == "from-the-fragment")), open(os.environ["SHARDRUN_RESULT"], "w"))']
  results: {toml_length: float64, greeting: float64}
EOF

# ---- the build: the shardrun image reused, the derived one on top, the push lines
start=$(date +%s)
if ! "$source_dir/scripts/build-image" --requirements "$project/requirements.txt" --dockerfile "$project/extra.dockerfile" \
    --name "$name" --aws-account 123456789012 --aws-region eu-west-1 --gcp-project my-project --gcp-region europe-west4 \
    --gcp-repository sweeps 2>&1 | tee "$scratch/build.log"; then
  echo "FAIL: scripts/build-image of the derived image failed"
  exit 1
fi
echo "image_derived_test: built in $(($(date +%s) - start)) s"
built=$(tail -n 1 "$scratch/build.log")
[[ $built == "localhost/$name" ]] || fail "build-image printed '$built' last, not localhost/$name"
base=$(sed -n 's/^build-image: building .* on \(.*\):$/\1/p' "$scratch/build.log")
[[ $base == localhost/shardrun:src-* ]] || fail "the derived image is not built on the image of these sources: '$base'"
grep -q "build-image: reusing $base" "$scratch/build.log" || fail "the shardrun image was not reused (the fixture built it)"
ecr=123456789012.dkr.ecr.eu-west-1.amazonaws.com
ar=europe-west4-docker.pkg.dev
for line in "aws ecr create-repository --repository-name shardrun-derived-test-$$ --region eu-west-1" \
    "aws ecr get-login-password --region eu-west-1 | podman login --username AWS --password-stdin $ecr" \
    "podman tag localhost/$name $ecr/$name" "podman push $ecr/$name" \
    "shardrun submit JOB.yaml --to aws-batch --image $ecr/$name" \
    "gcloud artifacts repositories create sweeps --repository-format=docker --location=europe-west4" \
    "gcloud auth configure-docker $ar" \
    "gcloud auth print-access-token | podman login --username oauth2accesstoken --password-stdin $ar" \
    "podman tag localhost/$name $ar/my-project/sweeps/$name" "podman push $ar/my-project/sweeps/$name" \
    "shardrun submit JOB.yaml --to gcp-batch --image $ar/my-project/sweeps/$name"; do
  grep -qxF "  $line" "$scratch/build.log" || grep -qF "  $line " "$scratch/build.log" || fail "no push line: $line"
done

# in_image NAME IMAGE COMMAND...: COMMAND in a fresh container (removed after), the project read-only
# at /project and a scratch folder at /out.
in_image() {
  local container=shardrun-image-derived-$$-$1
  shift
  containers+=("$container")
  "${podman[@]}" run --rm --name "$container" --network host -v "$project:/project:ro" -v "$scratch/out:/out" "$@"
}

# ---- the package is the derived image's: the shardrun image has none
if in_image base-import "$base" python3 -c 'import tomli_w' >/dev/null 2>&1; then
  fail "the shardrun image already imports tomli_w: the test proves nothing"
fi
out=$(in_image import "localhost/$name" python3 -c 'import tomli_w, h5py, shardrun; print("imported", tomli_w.__name__)' 2>&1) ||
  fail "the derived image cannot import tomli_w, h5py and shardrun: $out"
echo "$out"

# ---- a 2-rank run in the derived image whose tasks import the package
if out=$(in_image run "localhost/$name" mpirun -np 2 shardrun run /project/job.yaml --progress plain 2>&1); then
  echo "$out" | tail -n 2
  grep -q 'done 6/6 (6 ok, 0 failed)' <<<"$out" || fail "the run in the derived image did not run its 6 tasks"
else
  echo "$out"
  fail "mpirun -np 2 shardrun run failed in the derived image"
fi
if ! out=$(/usr/bin/python3 - "$scratch/out/derived.h5" 2>&1 <<'EOF'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    status = f["tasks/status"][:]
    lengths = f["results/toml_length"][:].tolist()
    greeting = f["results/greeting"][:].tolist()
    print("complete:", bool(f.attrs["complete"]), "ok:", int((status == 1).sum()), "toml_length:", lengths, "greeting:", greeting)
    assert bool(f.attrs["complete"]) and len(status) == 6 and (status == 1).all(), "not 6 ok tasks"
    assert lengths == [6.0] * 6, "each task's TOML from tomli_w is 6 characters"
    assert greeting == [1.0] * 6, "each task sees the fragment's ENV"
EOF
); then
  fail "the results of the run in the derived image: $out"
fi
echo "$out"

[[ $failures -eq 0 ]] || { echo "image_derived_test: $failures check(s) failed"; exit 1; }
echo "image_derived_test: passed"
