"""Runs what a reader would copy from a docs page, in order, in a scratch folder, and checks the output
the page quotes against the real run. The conventions (tests/docs/README.md says the same for authors):

- A fenced block with a title (```yaml title="sweep.yaml"```, any language) is a FILE: its text is written
  to that path, relative to the folder the commands are in at that point, before the next command runs.
- A ```console block holds COMMANDS: a line starting with "$ " is a command (a line ending with "\\"
  continues it on the next line), and the lines after it, up to the next "$ ", are what it prints
  (stdout and stderr together, as a terminal shows them). A command must exit 0, unless its last line
  ends with the comment "# exits N": then it must exit N.
- A ```pycon block is a PYTHON SESSION, as the interactive interpreter shows one: a line starting with
  ">>> " is a statement (lines starting with "... " right after it continue it), and the lines after it,
  up to the next ">>> ", are what it prints (an expression's value as the interpreter shows it, its
  prints, a traceback). The block's statements run one after the other in one `python3` (the first on the
  reader's PATH), in the folder the commands are in at that point; each statement's output is compared
  by the rule below.
- Every other block (```bash, ```text, ```json without a title, ...) is shown only, never run: use it for
  commands that need what a test cannot reach (a real cloud account, a GPU). A page's test may check
  such a block in its own way (job_fragments.py checks a page's ```yaml fragments).
- An HTML comment `<!-- docs-test: ... -->` on the line before a block's fence (a blank line between
  them allowed) is the block's `note` (invisible on the site), for a test that checks the block its own
  way (job_fragments.py's conventions).

The quoted output matches the real one line by line, with these rules and no others:
- a line that is only "..." stands for any number of lines (none included); without one at the start
  (end), the quote must match the first (last) lines printed;
- "..." inside a line stands for any text;
- a number written with a decimal point or an exponent (1.88, 0.0806373, 2.7986e+06) stands for any
  number: timings and measured values vary from run to run. Integers (counts, task ids, sizes, exit
  codes) must be equal;
- runs of spaces compare equal to any run of spaces, and spaces at either end of a line are ignored
  (aligned columns widen with their numbers).

The commands run in bash, one after the other; `cd` and `export` carry over to the next command, as in
the reader's terminal. Every process a command leaves behind is killed when the session ends.
Used by the tests of docs/tutorials/*.md and the other pages (tests/docs/*_test.py); `python3
page_snippets.py PAGE` runs a page in a scratch folder and prints what each command printed, for authors,
and SHARDRUN_DOCS_SHOW=1 in a test's environment prints the same as the test runs (for pages whose test
stands in for a cloud)."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid

# The cloud tests' helpers find and kill processes by an entry of their environment.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cloud"))
from cloud_servers import kill_processes_with_env, processes_with_env  # noqa: E402

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
TITLE = re.compile(r'title="(?P<title>[^"]+)"')
EXITS = re.compile(r"#\s*exits\s+(?P<code>\d+)\s*$")
NOTE = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<note>.*?)\s*-->\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(?P<title>.*?)\s*(\{#[^}]*\})?\s*$")
# A number that stands for any number: a decimal point or an exponent (not part of a word or a version).
# A unit may follow it ("5.0s").
LOOSE_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+(?=[eE][-+]?\d))(?:[eE][-+]?\d+)?(?![\d.])")
ANY_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


# Runs a ```pycon block's statements as the interactive interpreter does ("single" mode prints an
# expression's value with sys.displayhook; an exception prints its traceback and the session goes on),
# with a marker line before each statement's output so that each is compared on its own.
_PYCON_DRIVER = """import json, sys, traceback
statements, marker = json.load(open(sys.argv[1])), sys.argv[2]
namespace = {"__name__": "__main__"}
for source in statements:
    print(marker, flush=True)
    try:
        exec(compile(source + "\\n", "<stdin>", "single"), namespace)
    except Exception:
        traceback.print_exc()
    sys.stdout.flush()
    sys.stderr.flush()
"""


class Step:
    """One thing the reader does: write a file (kind "file"), type a command (kind "command") or a Python
    session's statements (kind "python"); or a block that is shown only (kind "shown", its language in
    `path`), which a test may check in its own way."""

    def __init__(self, kind, section, line, text, path=None, expected=None, exit_code=0, note=None,
                 statements=None):
        self.kind = kind  # "file", "command", "python" (a ```pycon block) or "shown"
        self.section = section  # the heading the step is under
        self.line = line  # the page's line number of the block or command, for messages
        self.text = text  # the file's text, or the command
        self.path = path
        self.expected = expected or []
        self.exit_code = exit_code
        self.note = note  # the text of a `<!-- docs-test: ... -->` comment right before the block, or None
        self.statements = statements or []  # a python step's (page line, source, expected lines)

    def __repr__(self):
        return f"{self.kind} at line {self.line}: {self.path or self.text}"


def _parse_console(lines, first_line, section):
    steps = []
    command = None
    for number, line in enumerate(lines, first_line):
        if command is not None and command["continues"]:
            command["text"] += "\n" + line
            command["continues"] = line.rstrip().endswith("\\")
            continue
        if line.startswith("$ ") or line == "$":
            command = {"text": line[2:], "line": number, "expected": [], "continues": line.rstrip().endswith("\\")}
            steps.append(command)
        elif command is not None:
            command["expected"].append(line)
        elif line.strip():
            raise ValueError(f"line {number}: a console block's output comes before any `$ ` command: {line!r}")
    result = []
    for command in steps:
        expected = command["expected"]
        while expected and not expected[-1].strip():
            expected.pop()
        exits = EXITS.search(command["text"])
        result.append(Step("command", section, command["line"], command["text"], expected=expected,
                           exit_code=int(exits.group("code")) if exits else 0))
    return result


def _parse_pycon(lines, first_line):
    """A ```pycon block's statements: (page line, source, the lines it prints)."""
    statements = []
    for number, line in enumerate(lines, first_line):
        if line.startswith(">>> ") or line == ">>>":
            statements.append((number, [line[4:]], []))
        elif statements and not statements[-1][2] and line.startswith("... "):
            statements[-1][1].append(line[4:])  # a continuation line, before any output
        elif statements:
            statements[-1][2].append(line)
        elif line.strip():
            raise ValueError(f"line {number}: a pycon block's output comes before any `>>> ` statement: {line!r}")
    result = []
    for number, source, expected in statements:
        while expected and not expected[-1].strip():
            expected.pop()
        result.append((number, "\n".join(source), expected))
    return result


def parse(text):
    """The steps of a page's text, in order."""
    steps = []
    section = ""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        heading = HEADING.match(lines[i])
        if heading:
            section = heading.group("title")
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, marker, info = fence.group("indent"), fence.group("fence"), fence.group("info")
        body = []
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(marker) and lines[j].strip().strip(marker[0]) == ""):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        if j == len(lines):
            raise ValueError(f"line {i + 1}: the block is never closed")
        language = info.split()[0].strip("{.") if info.split() else ""
        title = TITLE.search(info)
        before = next((line for line in reversed(lines[max(0, i - 2):i]) if line.strip()), "")
        note = NOTE.match(before)
        note = note.group("note") if note else None
        if title:
            steps.append(Step("file", section, i + 1, "\n".join(body) + "\n", path=title.group("title"), note=note))
        elif language == "console":
            steps.extend(_parse_console(body, i + 2, section))
        elif language == "pycon":
            steps.append(Step("python", section, i + 1, "\n".join(body) + "\n", note=note,
                              statements=_parse_pycon(body, i + 2)))
        else:
            steps.append(Step("shown", section, i + 1, "\n".join(body) + "\n", path=language, note=note))
        i = j + 1
    return steps


def load(path):
    with open(path) as f:
        return parse(f.read())


def _line_pattern(expected):
    pieces = []
    for k, part in enumerate(expected.strip().split("...")):
        if k:
            pieces.append(".*")
        position = 0
        for number in LOOSE_NUMBER.finditer(part):
            pieces.append(_literal(part[position:number.start()]))
            pieces.append(ANY_NUMBER)
            position = number.end()
        pieces.append(_literal(part[position:]))
    return re.compile("".join(pieces))


def _literal(text):
    return r"\s+".join(re.escape(word) for word in re.split(r"\s+", text))


def line_matches(expected, actual):
    return _line_pattern(expected).fullmatch(actual.strip()) is not None


def output_matches(expected, actual):
    """Whether the printed lines `actual` match the quote `expected` under the rules above."""
    if not expected:
        return not [line for line in actual if line.strip()]
    segments = [[]]
    for line in expected:
        if line.strip() == "...":
            segments.append([])
        else:
            segments[-1].append(line)
    anchored_start = bool(segments[0])
    anchored_end = bool(segments[-1])
    position = 0
    for k, segment in enumerate(segments):
        if not segment:
            continue
        last = k == len(segments) - 1
        starts = [0] if (k == 0 and anchored_start) else range(position, len(actual) - len(segment) + 1)
        if last and anchored_end:
            starts = [s for s in starts if s == len(actual) - len(segment)]
        found = next((s for s in starts if s + len(segment) <= len(actual) and
                      all(line_matches(e, a) for e, a in zip(segment, actual[s:s + len(segment)]))), None)
        if found is None:
            return False
        position = found + len(segment)
    return True


class Session:
    """A reader's terminal: a scratch folder, an environment (`env`), bash for each command; `cd` and
    `export` carry over. Processes it leaves are found by a token in their environment and killed by close()."""

    def __init__(self, env, folder=None, timeout=600):
        self.folder = folder or tempfile.mkdtemp(prefix="shardrun-docs-")
        self.owns_folder = folder is None
        self.state = tempfile.mkdtemp(prefix="shardrun-docs-state-")
        self.token = f"SHARDRUN_DOCS_SESSION={uuid.uuid4().hex}"
        self.env = {**env, self.token.split("=")[0]: self.token.split("=")[1]}
        self.cwd = self.folder
        self.timeout = timeout
        self.log = []  # (step, exit code, printed lines) of every command run

    def write(self, step):
        path = os.path.join(self.cwd, step.path)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            f.write(step.text)

    def command(self, text, timeout=None):
        """Runs one command as the reader's shell would; returns (exit code, printed lines)."""
        script = (f"{text}\n__shardrun_docs_status=$?\npwd > {self.state}/pwd\nenv -0 > {self.state}/env\n"
                  "exit $__shardrun_docs_status\n")
        proc = subprocess.Popen(["bash", "-c", script], cwd=self.cwd, env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout or self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            raise AssertionError(f"`{text}` ran past {timeout or self.timeout} s; it printed:\n{out}")
        try:
            with open(os.path.join(self.state, "pwd")) as f:
                self.cwd = f.read().strip()
            with open(os.path.join(self.state, "env"), "rb") as f:
                entries = [e.decode() for e in f.read().split(b"\0") if b"=" in e]
            self.env = dict(e.split("=", 1) for e in entries)
        except FileNotFoundError:
            pass  # the command ended the shell itself (exec, exit): nothing carries over
        return proc.returncode, out.splitlines()

    def python(self, step):
        """Runs a ```pycon block's statements in one `python3` of the reader's PATH, in the current folder;
        returns what each printed (a list of lines per statement, in order)."""
        marker = f"---- statement {uuid.uuid4().hex} ----"
        with open(os.path.join(self.state, "pycon.json"), "w") as f:
            json.dump([source for _, source, _ in step.statements], f)
        with open(os.path.join(self.state, "pycon.py"), "w") as f:
            f.write(_PYCON_DRIVER)
        code, printed = self.command(f"python3 -u {self.state}/pycon.py {self.state}/pycon.json '{marker}' 2>&1")
        if code != 0 or marker not in printed:
            raise AssertionError(f"page line {step.line}: the Python session did not run (exit {code}):\n"
                                 + "\n".join(printed))
        outputs = []
        for line in printed[printed.index(marker):]:
            if line == marker:
                outputs.append([])
            else:
                outputs[-1].append(line)
        if len(outputs) != len(step.statements):
            raise AssertionError(f"page line {step.line}: the Python session ended after {len(outputs)} of its "
                                 f"{len(step.statements)} statements:\n" + "\n".join(printed))
        return outputs

    def step(self, step):
        """Does one step: writes a file, or runs a command and returns (exit code, printed lines), or runs a
        Python session and returns what each statement printed; None otherwise."""
        if step.kind == "file":
            self.write(step)
        elif step.kind == "command":
            code, printed = self.command(step.text)
            self.log.append((step, code, printed))
            return code, printed
        elif step.kind == "python":
            outputs = self.python(step)
            self.log.append((step, 0, [line for output in outputs for line in output]))
            return outputs
        return None

    def run(self, steps):
        """Runs the steps in order; an AssertionError names the first one that did not do what the page says."""
        for step in steps:
            done = self.step(step)
            if done is None:
                continue
            if step.kind == "python":
                self._check_python(step, done)
                continue
            code, printed = done
            shown = "\n".join(printed)
            if os.environ.get("SHARDRUN_DOCS_SHOW"):  # for authors: every command's real output, to quote
                print(f"$ {step.text}    [exit {code}]\n{shown}", flush=True)
            if code != step.exit_code:
                raise AssertionError(f"page line {step.line}: `{step.text}` exited {code}, the page says "
                                     f"{step.exit_code}; it printed:\n{shown}")
            if not output_matches(step.expected, printed):
                raise AssertionError(f"page line {step.line}: `{step.text}` printed what the page does not quote.\n"
                                     f"--- the page:\n" + "\n".join(step.expected) + f"\n--- the run:\n{shown}")

    @staticmethod
    def _check_python(step, outputs):
        for (line, source, expected), printed in zip(step.statements, outputs):
            if os.environ.get("SHARDRUN_DOCS_SHOW"):
                print(f">>> {source}\n" + "\n".join(printed), flush=True)
            if not output_matches(expected, printed):
                raise AssertionError(f"page line {line}: `>>> {source}` printed what the page does not quote.\n"
                                     f"--- the page:\n" + "\n".join(expected) + "\n--- the run:\n" + "\n".join(printed))

    def processes(self):
        return processes_with_env(self.token)

    def close(self):
        kill_processes_with_env(self.token)
        shutil.rmtree(self.state, ignore_errors=True)
        if self.owns_folder:
            shutil.rmtree(self.folder, ignore_errors=True)


def section(steps, title):
    """The steps under the headings whose title starts with `title`."""
    chosen = [step for step in steps if step.section.startswith(title)]
    if not chosen:
        raise AssertionError(f"the page has no steps under a heading starting with {title!r}")
    return chosen


def reader_env(bin_dir, shardrun, mpiexec, python_bin=None, base=None):
    """The environment of a reader who followed "What you need": shardrun on PATH (a link to `shardrun`),
    `mpirun` (this machine's, oversubscribing its 2 cores) and, when given, the folder of a Python
    with the packages the page lists first on PATH (as an activated venv puts it)."""
    os.makedirs(bin_dir, exist_ok=True)
    os.symlink(shardrun, os.path.join(bin_dir, "shardrun"))
    # A link, so that the reader's `mpirun` starts it by name: Open MPI started by an absolute path acts as if
    # given --prefix and puts its own bin folder first on the ranks' PATH, ahead of the reader's venv.
    os.symlink(shutil.which("mpirun") or mpiexec, os.path.join(bin_dir, "mpirun"))
    env = dict(base if base is not None else os.environ)
    env["PATH"] = ":".join(p for p in (bin_dir, python_bin, env.get("PATH", "/usr/bin:/bin")) if p)
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"  # this machine's 2 cores
    return env


if __name__ == "__main__":
    # For authors: run PAGE with shardrun from SHARDRUN_BIN and print each command's real output.
    page = sys.argv[1]
    work = tempfile.mkdtemp(prefix="shardrun-docs-author-")
    session = Session(reader_env(os.path.join(work, "bin"), os.environ["SHARDRUN_BIN"],
                                 os.environ.get("SHARDRUN_MPIEXEC", "mpiexec"),
                                 os.environ.get("SHARDRUN_DOCS_PYTHON_BIN")), folder=os.path.join(work, "reader"))
    os.makedirs(session.folder)
    try:
        for step in load(page):
            done = session.step(step)
            if done is None:
                continue
            if step.kind == "python":
                for (_, source, expected), printed in zip(step.statements, done):
                    print(f">>> {source}    [quote {'matches' if output_matches(expected, printed) else 'DIFFERS'}]")
                    print("\n".join(printed))
                continue
            code, printed = done
            print(f"$ {step.text}    [exit {code}; page expects {step.exit_code}; "
                  f"quote {'matches' if output_matches(step.expected, printed) else 'DIFFERS'}]")
            print("\n".join(printed))
    finally:
        session.close()
        shutil.rmtree(work, ignore_errors=True)
