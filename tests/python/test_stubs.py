"""The type stubs (`_neardup.pyi`) name every class and function of the native module, and
every method of its classes, so editors and type checkers see what is there."""

import ast
from pathlib import Path

import neardup
from neardup import _neardup

STUBS = Path(neardup.__file__).with_name("_neardup.pyi")


def stubbed():
    tree = ast.parse(STUBS.read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = None
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = None
    return names


def test_every_native_name_has_a_stub():
    stubs = stubbed()
    public = {n for n in dir(_neardup) if not n.startswith("_")}
    assert public - set(stubs) == set(), "names without stubs"
    for name, methods in stubs.items():
        assert hasattr(_neardup, name), f"stub for a missing name: {name}"
        if methods is None:
            continue
        cls = getattr(_neardup, name)
        own = {m for m in vars(cls) if not m.startswith("_")}
        if issubclass(cls, BaseException):
            continue
        assert own - methods == set(), f"{name}: methods without stubs"
