"""The bad-input catalogue (issue 12, point 15): broken job files and command lines, each run
against the real shardrun binary, each checked for

  - its exit code (2 for bad input or usage);
  - exactly one line on stderr starting with "shardrun:", holding the expected fragment;
  - for an error in a field of the job file, that line starts with `<file>:<line>:<col>: <field>`
    (`--set <field>` for an override);
  - a bad command line's line ends with a pointer to the option table, "(see shardrun CMD
    --help)", and no usage block follows (only `shardrun` with no command prints the command
    list); no traceback, crash report or sanitizer report anywhere;
  - nothing left on disk: each case runs in a fresh working directory (output.path inside it),
    and afterwards that directory holds exactly what the case put there, unchanged.

cases.json lists the cases; known_bugs.json lists cases whose correct expectation shardrun does
not meet yet: they are printed as "NOT CHECKED (known bug)" and do not fail the suite (run them
with --known-bugs to see how they behave today). Job files are in jobs/, other files in fixtures/.

    SHARDRUN_BIN=build/shardrun python3 tests/bad-inputs/run_catalogue.py [--show] [--known-bugs] [NAME...]
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))

import harness  # noqa: E402  (needs SHARDRUN_BIN)

CASE_KEYS = {"name", "what", "args", "job", "np", "fixtures", "setup", "expect_exit", "expect_fragment",
             "expect_location", "expect_field", "forbid_fragment", "usage_block", "help_pointer", "bug"}
# Signs of a crash or an unhandled error that must never reach the user, whatever else is printed.
HELP_POINTER = re.compile(r"\(see shardrun( [a-z]+)? --help\)$")
CRASH_SIGNS = re.compile(r"Traceback|terminate called|Segmentation fault|core dumped|AddressSanitizer|"
                         r"UndefinedBehaviorSanitizer|runtime error:|HDF5-DIAG|what\(\):|Assertion .* failed")
CASE_TIMEOUT = 60
MINIMUM_CASES = 60


def load(name):
    with open(os.path.join(HERE, name)) as f:
        cases = json.load(f)["cases"]
    for case in cases:
        unknown = set(case) - CASE_KEYS
        if unknown:
            raise SystemExit(f"{name}: case {case.get('name')}: unknown keys {sorted(unknown)}")
        for key in ("name", "what", "args", "expect_exit", "expect_fragment"):
            if key not in case:
                raise SystemExit(f"{name}: case {case.get('name')}: missing '{key}'")
        if ("bug" in case) != (name == "known_bugs.json"):
            raise SystemExit(f"{name}: case {case['name']}: 'bug' belongs to known_bugs.json cases, and only there")
    return cases


def snapshot(root):
    """Every path under root with its kind, size and modification time."""
    found = {}
    for parent, dirs, files in os.walk(root):
        for entry in dirs + files:
            path = os.path.join(parent, entry)
            st = os.lstat(path)
            kind = "dir" if os.path.isdir(path) and not os.path.islink(path) else "file"
            found[os.path.relpath(path, root)] = (kind, 0 if kind == "dir" else st.st_size, st.st_mtime_ns)
    return found


def expand(value, names):
    """Replaces {job}, {work} and {fixtures}; other braces (placeholders in messages) stay as they are."""
    for key, path in names.items():
        value = value.replace("{" + key + "}", path)
    return value


def prepare(case, work):
    """Puts the case's job file, fixtures and setup into work; returns the placeholders of args."""
    names = {"work": work, "fixtures": os.path.join(HERE, "fixtures")}
    if "job" in case:
        job = os.path.join(work, os.path.basename(case["job"]))
        shutil.copyfile(os.path.join(HERE, "jobs", case["job"]), job)
        names["job"] = job
    for fixture in case.get("fixtures", []):
        shutil.copyfile(os.path.join(HERE, "fixtures", fixture), os.path.join(work, os.path.basename(fixture)))
    for step in case.get("setup", []):
        kind = step[0]
        if kind == "mkdir":
            os.makedirs(os.path.join(work, step[1]))
        elif kind == "write":  # ["write", path, text]
            with open(os.path.join(work, step[1]), "w") as f:
                f.write(step[2])
        elif kind == "h5":  # ["h5", path, {dataset: [dims...] or {"shape": [dims...], "dtype": "float64"}}]
            import h5py
            with h5py.File(os.path.join(work, step[1]), "w") as f:
                for dataset, shape in step[2].items():
                    spec = shape if isinstance(shape, dict) else {"shape": shape, "dtype": "float32"}
                    f.create_dataset(dataset, shape=tuple(spec["shape"]), dtype=spec["dtype"])
        elif kind == "run":  # ["run", args...]: a preceding command that must succeed (e.g. a finished output)
            proc = harness.run([expand(a, names) for a in step[1:]], cwd=work, timeout=CASE_TIMEOUT)
            if proc.returncode != 0:
                raise RuntimeError(f"setup {step[1:]} exited {proc.returncode}: {proc.stderr.strip()}")
        else:
            raise SystemExit(f"case {case['name']}: unknown setup step {kind}")
    return names


def check_location(body, case, names):
    """Why the line does not start where the case says: `<file>:<line>:<col>: <field>:` or `--set <field>:`."""
    location = expand(case["expect_location"], names)
    field = case.get("expect_field")
    if location.startswith("--set "):
        want = location + ": " + (field + ": " if field else "")
        return [] if body.startswith(want) else [f"the line does not start with {want!r}"]
    # The case may give the file, the file and line, or all three; the line must have all three.
    match = re.match(re.escape(location) + r"(:\d+)*", body)
    if not match or not re.search(r":\d+:\d+$", match.group(0)):
        return [f"the line does not start with {location}[:line]:col"]
    rest = body[match.end():]
    want = ": " + (field + ":" if field else "")
    return [] if rest.startswith(want) else [f"the location is not followed by {want!r}"]


def check(case, proc, names, before, after):
    """The reasons the case fails; empty when it passes."""
    why = []
    if proc.returncode != case["expect_exit"]:
        why.append(f"exit {proc.returncode}, expected {case['expect_exit']}")
    lines = [line for line in proc.stderr.splitlines() if line.startswith("shardrun:")]
    if len(lines) != 1:
        why.append(f"{len(lines)} 'shardrun:' lines on stderr, expected 1: {lines[:3]}")
    crash = CRASH_SIGNS.search(proc.stderr + proc.stdout)
    if crash:
        why.append(f"crash or internal error printed: {crash.group(0)!r}")
    if "\0" in proc.stderr:
        why.append("a NUL character on stderr")
    usage_printed = "usage: shardrun" in proc.stderr
    if case.get("usage_block", False) != usage_printed:
        why.append("a usage block was printed" if usage_printed else "no usage block, as for other bad options")
    if case.get("help_pointer", False) and not (lines and HELP_POINTER.search(lines[0])):
        why.append("the line does not end with a pointer to --help, as for other bad options")
    if proc.stdout.strip():
        why.append(f"stdout is not empty: {proc.stdout.strip().splitlines()[0]!r}")
    if lines:
        # Under several ranks the line may be "shardrun: rank R: ...".
        body = re.sub(r"^shardrun: (rank \d+: )?", "", lines[0])
        fragment = expand(case["expect_fragment"], names)
        if fragment not in body:
            why.append(f"fragment {fragment!r} not in the line")
        if case.get("forbid_fragment") and case["forbid_fragment"] in body:
            why.append(f"the line holds {case['forbid_fragment']!r}")
        if case.get("expect_location"):
            why += check_location(body, case, names)
        elif case.get("expect_field") and case["expect_field"] not in body:
            why.append(f"the field {case['expect_field']!r} is not named")
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(p for p in set(before) & set(after) if before[p] != after[p] and before[p][0] == "file")
    if added:
        why.append(f"left on disk: {', '.join(added[:4])}")
    if removed:
        why.append(f"deleted: {', '.join(removed[:4])}")
    if changed:
        why.append(f"modified: {', '.join(changed[:4])}")
    return why


def run_case(case, show):
    work = tempfile.mkdtemp(prefix="shardrun-bad-")
    try:
        names = prepare(case, work)
        before = snapshot(work)
        args = [expand(a, names) for a in case["args"]]
        started = time.monotonic()
        proc = harness.run(args, np=case.get("np"), cwd=work, timeout=CASE_TIMEOUT)
        seconds = time.monotonic() - started
        why = check(case, proc, names, before, snapshot(work))
        shown = ""
        if show:
            shown = f"  $ shardrun {' '.join(args)}  (np={case.get('np')}) -> exit {proc.returncode}\n"
            shown += "".join(f"  | {line}\n" for line in (proc.stderr + proc.stdout).splitlines()
                             if show == "all" or line.startswith("shardrun:"))
        return why, seconds, shown
    except Exception as error:  # noqa: BLE001 - a timeout or a failed setup is that case's failure
        return [f"{type(error).__name__}: {error}"], 0.0, ""
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="run only these cases")
    parser.add_argument("--show", action="store_const", const="shardrun", help="print each case's 'shardrun:' lines")
    parser.add_argument("--show-all", dest="show", action="store_const", const="all", help="print all output")
    parser.add_argument("--known-bugs", action="store_true", help="also run known_bugs.json and show how they fail")
    parser.add_argument("-j", "--jobs", type=int, default=8, help="cases run at once (default 8)")
    options = parser.parse_args()

    cases = load("cases.json")
    known = load("known_bugs.json")
    all_names = [c["name"] for c in cases + known]
    duplicates = sorted({n for n in all_names if all_names.count(n) > 1})
    if duplicates:
        raise SystemExit(f"duplicate case names: {duplicates}")
    used = {c["job"] for c in cases + known if "job" in c}
    unused = sorted(set(os.listdir(os.path.join(HERE, "jobs"))) - used)
    if unused:
        raise SystemExit(f"job files no case uses: {unused}")
    if len(cases) < MINIMUM_CASES:
        raise SystemExit(f"cases.json has {len(cases)} cases; the catalogue keeps at least {MINIMUM_CASES}")
    if options.names:
        cases = [c for c in cases if c["name"] in options.names]
        known = [c for c in known if c["name"] in options.names]

    started = time.monotonic()
    to_run = cases + (known if options.known_bugs else [])
    with concurrent.futures.ThreadPoolExecutor(max(1, options.jobs)) as pool:
        # Multi-rank cases first: they take longest.
        order = sorted(to_run, key=lambda c: -(c.get("np") or 1))
        futures = {c["name"]: pool.submit(run_case, c, options.show) for c in order}
        results = {name: future.result() for name, future in futures.items()}

    width = max([len(c["name"]) for c in cases + known] + [4])
    failed = 0
    print(f"{'case':<{width}}  {'result':<6}  {'secs':>5}  why")
    for case in cases:
        why, seconds, shown = results[case["name"]]
        failed += bool(why)
        print(f"{case['name']:<{width}}  {'FAIL' if why else 'pass':<6}  {seconds:5.1f}  {'; '.join(why)}")
        if shown:
            print(shown, end="")
    for case in known:
        note = case["bug"]
        if case["name"] in results:
            why, seconds, shown = results[case["name"]]
            note += f" | today: {'; '.join(why)}" if why else " | today: PASSES, move it to cases.json"
        print(f"{case['name']:<{width}}  NOT CHECKED (known bug)  {note}")
        if case["name"] in results and results[case["name"]][2]:
            print(results[case["name"]][2], end="")
    print(f"\n{len(cases) - failed} of {len(cases)} cases passed, {failed} failed; {len(known)} known bugs not checked;"
          f" {time.monotonic() - started:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
