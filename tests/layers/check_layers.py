#!/usr/bin/env python3
"""Fails on an #include of product code that the layer maps forbid, naming the file and line.

The maps are fenced blocks in docs/developing/layout.md (the top map), runner/README.md and io/README.md:

    ```layers SCOPE
    room | room          <- the bottom floor first; rooms on one line share a floor
    room
    ```

SCOPE is `top` (the layers: base/, kernels/, ...) or a layer's folder name (`io`, `runner`).
A room is a folder (trailing slash), one file, or a file's stem (`runner/run/run_job` is its .hpp
and .cpp together); a file belongs to the longest room that contains it. A room may include itself and any room on a lower floor; rooms that share a
floor may not include each other. Every product file must be in a room of each map whose
folder holds it, so that a new folder cannot slip past the map.

An edge that the map forbids but that cannot go yet is listed in a ```layers-debt SCOPE```
block, one `from/file -> to/header` a line; a debt line that no longer matches an include
fails too, so the list only shrinks.

Usage: check_layers.py [REPO]   (exit 0: clean; 1: forbidden edges, each on one line; 2: a bad map)
Reads only text: runs in well under a second.
"""

import pathlib
import re
import sys

PRODUCT = ("base", "kernels", "collectives", "io", "runner")
SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".cu", ".cuh", ".in"}
MAP_FILES = ("docs/developing/layout.md", "runner/README.md", "io/README.md")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
BLOCK = re.compile(r"^```(layers|layers-debt) (\S+)\s*$")


class MapError(Exception):
    pass


class LayerMap:
    def __init__(self, scope, where):
        self.scope = scope
        self.where = where  # "runner/README.md:123"
        self.floor_of = {}  # room -> floor index (0 = bottom)
        self.debts = {}     # (from, to) -> "file:line" of the debt entry

    @property
    def folder(self):
        return "" if self.scope == "top" else self.scope + "/"

    def covers(self, path):
        return path.startswith(self.folder) and path.split("/")[0] in PRODUCT

    def room(self, path):
        best = None
        for room in self.floor_of:
            inside = path.startswith(room) if room.endswith("/") else path == room or path.startswith(room + ".")
            if inside:
                if best is None or len(room) > len(best):
                    best = room
        return best


def read_maps(repo):
    maps = {}
    for name in MAP_FILES:
        path = repo / name
        if not path.exists():
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            m = BLOCK.match(lines[i])
            if not m:
                i += 1
                continue
            kind, scope = m.groups()
            where = f"{name}:{i + 1}"
            layer_map = maps.setdefault(scope, LayerMap(scope, where))
            if kind == "layers" and layer_map.floor_of:
                raise MapError(f"{where}: a second `layers {scope}` block (the first is at {layer_map.where})")
            if kind == "layers":
                layer_map.where = where
            i += 1
            floor = 0
            while i < len(lines) and not lines[i].startswith("```"):
                text = lines[i].split("#", 1)[0].strip()
                if text and kind == "layers":
                    for room in (r.strip() for r in text.split("|")):
                        if room in layer_map.floor_of:
                            raise MapError(f"{name}:{i + 1}: room {room} is listed twice")
                        stem = repo / room
                        if not stem.exists() and not list(stem.parent.glob(stem.name + ".*")):
                            raise MapError(f"{name}:{i + 1}: room {room} does not exist")
                        layer_map.floor_of[room] = floor
                    floor += 1
                elif text:
                    parts = [p.strip() for p in text.split("->")]
                    if len(parts) != 2:
                        raise MapError(f"{name}:{i + 1}: a debt line is `from/file -> to/header`, not {text!r}")
                    layer_map.debts[tuple(parts)] = f"{name}:{i + 1}"
                i += 1
            i += 1
    for scope, layer_map in maps.items():
        if not layer_map.floor_of:
            raise MapError(f"{layer_map.where}: `layers-debt {scope}` without a `layers {scope}` map")
    if "top" not in maps:
        raise MapError("docs/developing/layout.md has no ```layers top``` block")
    return maps


def product_files(repo):
    for root in PRODUCT:
        for path in sorted((repo / root).rglob("*")):
            if path.is_file() and path.suffix in SOURCE_SUFFIXES:
                yield path.relative_to(repo).as_posix()


def check(repo):
    maps = read_maps(repo)
    problems = []
    used_debts = set()
    files = list(product_files(repo))
    for layer_map in maps.values():
        for path in files:
            if layer_map.covers(path) and layer_map.room(path) is None:
                problems.append(f"{path}: in no room of the `layers {layer_map.scope}` map ({layer_map.where}); add its room")
    for path in files:
        for number, line in enumerate((repo / path).read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            header = m.group(1)
            if header.split("/")[0] not in PRODUCT:
                continue  # a system, generated or third-party header
            for layer_map in maps.values():
                if not (layer_map.covers(path) and layer_map.covers(header)):
                    continue
                source_room, header_room = layer_map.room(path), layer_map.room(header)
                if source_room is None or header_room is None or source_room == header_room:
                    continue
                source_floor, header_floor = layer_map.floor_of[source_room], layer_map.floor_of[header_room]
                if header_floor < source_floor:
                    continue
                if (path, header) in layer_map.debts:
                    used_debts.add((layer_map.scope, path, header))
                    continue
                how = "shares its floor" if header_floor == source_floor else "is above it"
                problems.append(
                    f"{path}:{number}: includes {header}: room {header_room} {how} in the `layers {layer_map.scope}` "
                    f"map ({layer_map.where}), so room {source_room} may not include it")
    for layer_map in maps.values():
        for (source, header), where in layer_map.debts.items():
            if (layer_map.scope, source, header) not in used_debts:
                problems.append(f"{where}: debt {source} -> {header} is paid (no such forbidden include): remove the line")
    return problems


def main(argv):
    repo = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
    try:
        problems = check(repo)
    except MapError as error:
        print(f"check_layers: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check_layers: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("check_layers: every include of product code keeps the layer maps")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
