#!/usr/bin/env python3
"""Import cycles between the sibling modules of each crate: `crate::x` and `super::x` paths,
in `use` statements (grouped ones too: `use crate::{a, b::{c, d}};`) and inline in code.
Prints every cycle found and exits 1 if there is one.

    python3 .ci/module_cycles.py [ROOT]     (default: the repository)
    python3 .ci/module_cycles.py --self-test
"""
import glob
import os
import re
import sys
import tempfile


def expand(tree):
    """The paths a `use` tree names: `a::{b, c::{d, e}}` -> a::b, a::c::d, a::c::e."""
    tree = re.sub(r"\s+", "", tree)
    depth, start, parts = 0, 0, []
    # Split at top-level commas.
    for i, ch in enumerate(tree):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(tree[start:i])
            start = i + 1
    parts.append(tree[start:])
    out = []
    for p in filter(None, parts):
        brace = p.find("{")
        if brace < 0:
            out.append(p)
            continue
        prefix, inner = p[:brace], p[brace + 1:p.rindex("}")]
        for q in expand(inner):
            out.append(prefix + q if q != "self" else prefix.rstrip(":"))
    return out


def deps_of(text):
    """(root, path) pairs a file's code names: root `crate` or `super`."""
    text = "\n".join(l for l in text.split("\n") if not l.strip().startswith("//"))
    out = set()
    for root, tree in re.findall(r"\buse\s+(crate|super)::(.*?);", text, re.S):
        for path in expand(tree):
            out.add((root, path))
    for root, path in re.findall(r"\b(crate|super)::([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)?)", text):
        out.add((root, path))
    return out


def cycles(crate):
    """Every cycle among the modules of the source folder `crate`."""
    mods = {}
    for f in glob.glob(crate + "/**/*.rs", recursive=True):
        rel = os.path.relpath(f, crate)[:-3]
        if rel in ("lib", "main"):
            continue
        name = rel.replace("/mod", "").replace("/", "::")
        deps = set()
        for root, path in deps_of(open(f).read()):
            segs = [s for s in path.split("::") if s]
            if root == "crate":
                deps.add("::".join(segs[:2]))
            else:
                parent = name.rsplit("::", 1)[0] if "::" in name else ""
                deps.add((parent + "::" if parent else "") + (segs[0] if segs else ""))
        mods[name] = deps
    names = set(mods)

    def norm(d):
        if d in names:
            return d
        top = d.split("::")[0]
        return top if top in names else None

    g = {m: {norm(d) for d in ds if norm(d) and norm(d) != m and not norm(d).startswith(m + "::")
             and not m.startswith(norm(d) + "::")} for m, ds in mods.items()}
    found, color = [], {}

    def dfs(u, stack):
        color[u] = 1
        stack.append(u)
        for v in sorted(g.get(u, ())):
            if color.get(v) == 1:
                found.append(" -> ".join(stack[stack.index(v):] + [v]))
            elif not color.get(v):
                dfs(v, stack)
        stack.pop()
        color[u] = 2

    for m in sorted(g):
        if not color.get(m):
            dfs(m, [])
    return found


def main(root):
    bad = 0
    for crate in sorted(glob.glob(root + "/crates/*/src")) + [root + "/src"]:
        for c in cycles(crate):
            print(os.path.relpath(crate, root), "cycle:", c)
            bad = 1
    return bad


def self_test():
    """A cycle made only of grouped imports is found; the same modules without it are not."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "src")
        os.makedirs(src)
        open(os.path.join(src, "a.rs"), "w").write("use crate::{b::{One, Two}, c};\n")
        open(os.path.join(src, "b.rs"), "w").write("use crate::{\n    a::Thing,\n};\n")
        open(os.path.join(src, "c.rs"), "w").write("// use crate::{a};\n")
        assert cycles(src), "a grouped-import cycle is caught"
        open(os.path.join(src, "b.rs"), "w").write("use crate::{c::Thing};\n")
        assert not cycles(src), cycles(src)
    assert expand("a::{b, c::{d, e}}, f") == ["a::b", "a::c::d", "a::c::e", "f"]
    print("module_cycles self-test: ok")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
