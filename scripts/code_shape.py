#!/usr/bin/env python3
"""The shape of attnlab's code, as figures anyone can rerun on any commit:

  scripts/code_shape.py functions [N]   the N longest functions (default 15) outside tests/ and exercises/
  scripts/code_shape.py includes        the include graph between folders, and the arrows that run up

Functions are found by matching braces on the source with comments and string
literals blanked out: a brace opened after a ')' (with qualifiers between) at a
point where no function is open starts a function, so lambdas count with the
function around them. Good enough for a ranking; not a parser.
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ["app", "kernels", "reference", "bench"]
EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh", ".inl", ".h")
CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof", "noexcept"}


def source_files(dirs=SOURCE_DIRS):
    for top in dirs:
        for base, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith(EXTENSIONS):
                    yield os.path.join(base, f)


def blank_comments_and_strings(text):
    """Comments and literals replaced by spaces; newlines kept, so lines still count."""
    out, i, n = [], 0, len(text)
    raw = re.compile(r'R"([^(\s]{0,16})\(')
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif (m := raw.match(text, i)) is not None:
            end = ")" + m.group(1) + '"'
            j = text.find(end, m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 digit separators
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    text = blank_comments_and_strings(open(path, encoding="utf-8", errors="replace").read())
    found, depth, open_fn, last_stop = [], 0, None, 0
    for i, c in enumerate(text):
        if c == "{":
            head = text[last_stop:i]
            if open_fn is None and re.search(r"\)\s*(const|override|final|noexcept|mutable|->[^;{}]*|\s)*$", head):
                name_match = re.search(r"([~\w:]+)\s*\([^()]*(\([^()]*\)[^()]*)*\)[^()]*$", head)
                name = name_match.group(1) if name_match else "?"
                if name.split("::")[-1] not in CONTROL and not re.search(r"\b(class|struct|namespace|enum|union)\b[^()]*$", head):
                    open_fn = (name, text.count("\n", 0, i) + 1, depth)
            depth += 1
            last_stop = i + 1
        elif c == "}":
            depth -= 1
            last_stop = i + 1
            if open_fn is not None and depth == open_fn[2]:
                end_line = text.count("\n", 0, i) + 1
                found.append((end_line - open_fn[1] + 1, open_fn[0], open_fn[1]))
                open_fn = None
        elif c == ";":
            last_stop = i + 1
    return found


def longest_functions(count):
    rows = []
    for path in source_files():
        rel = os.path.relpath(path, ROOT)
        rows += [(lines, f"{rel}:{line}", name) for lines, name, line in functions(path)]
    rows.sort(key=lambda r: (-r[0], r[1]))
    lengths = sorted(r[0] for r in rows)
    print(f"{len(rows)} functions, median {lengths[len(lengths) // 2]} lines, {sum(1 for n in lengths if n > 80)} over 80")
    for lines, where, name in rows[:count]:
        print(f"{lines:5d}  {name}  {where}")


# The folder a file (or an include path) belongs to, at the granularity of
# the layers: app/core's subfolders count on their own.
def folder_of(rel):
    parts = rel.split("/")
    if parts[0] == "app" and len(parts) > 1:
        if parts[1] == "core":
            sub = parts[2:]
            if sub and sub[0] in ("src", "include"):
                sub = sub[1:] if sub[0] == "src" else sub[3:]  # include/attnlab/core/<sub>/x.hpp
            return "app/core/" + sub[0] if len(sub) > 1 else "app/core"
        return "app/" + parts[1]
    return parts[0]


def include_target(inc):
    """Which folder an `#include "attnlab/..."` names."""
    parts = inc.split("/")
    if len(parts) < 2 or parts[0] != "attnlab":
        return None
    layer = parts[1]
    if layer == "core":  # attnlab/core/<folder>/x.hpp; the generated build_config.hpp is the base's
        return "app/core/" + parts[2] if len(parts) > 3 else "app/core/base"
    table = {"common": "app/common", "reference": "reference", "kernels": "kernels", "emu": "app/emu", "gui": "app/gui"}
    if layer in table:
        return table[layer]
    if layer.startswith(("cuda_emu", "emu_device")):
        return "app/emu"
    return "app/learner"  # tensor.hpp, entry.hpp, cuda.hpp: the learner API


# Lower layers must not include higher ones; app/core's folders are ordered
# along the data path.
LAYERS = ["app/common", "app/emu", "app/learner", "reference", "kernels", "app/nvrtc", "app/sandbox",
          # app/core along the data path: exercise -> compile, run, judge -> words -> views -> the learner's desk
          "app/core/base", "app/core/course", "app/core/check", "app/core/text", "app/core/views", "app/core/desk", "app/core",
          "app/cli", "app/gui", "bench"]


def layer_rank(folder):
    for i, layer in enumerate(LAYERS):
        if folder == layer or folder.startswith(layer + "/"):
            return i
    return len(LAYERS)


def includes():
    edges = defaultdict(int)
    for path in source_files(["app", "kernels", "reference"]):
        rel = os.path.relpath(path, ROOT)
        src = folder_of(rel)
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(path, encoding="utf-8", errors="replace").read(), re.M):
            dst = include_target(inc)
            if dst and dst != src:
                edges[(src, dst)] += 1
    up = []
    for (src, dst), n in sorted(edges.items()):
        rising = layer_rank(dst) > layer_rank(src)
        print(f"{src:28s} -> {dst:28s} {n:4d}{'   UP' if rising else ''}")
        if rising:
            up.append((src, dst))
    print(f"{len(edges)} arrows between folders, {len(up)} running up")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "functions"
    if what == "functions":
        longest_functions(int(sys.argv[2]) if len(sys.argv) > 2 else 15)
    elif what == "includes":
        includes()
    else:
        sys.exit(__doc__)
