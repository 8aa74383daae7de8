"""The type stubs of the compiled modules (splendor_ai/_engine.pyi, ...) name exactly what each
module exports, and every class's public methods and attributes: a name added to a .pyx (or to the
engine header's cpdef enum) without its stub, or a stub left behind, fails here."""
import ast
import importlib
from pathlib import Path

import pytest

import splendor_ai

PACKAGE = Path(splendor_ai.__file__).parent
COMPILED = ("_engine", "_mcts", "_policy", "_expectimax")


def _stub_names(body) -> set[str]:
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _public(names) -> set[str]:
    return {n for n in names if not (n.startswith("__") and n.endswith("__"))}


@pytest.mark.parametrize("name", COMPILED)
def test_stub_names_what_the_compiled_module_exports(name):
    module = importlib.import_module(f"splendor_ai.{name}")
    tree = ast.parse((PACKAGE / f"{name}.pyi").read_text(encoding="utf-8"))
    assert _stub_names(tree.body) == _public(dir(module))
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            cls = getattr(module, node.name)
            assert _public(_stub_names(node.body)) == _public(set(dir(cls)) - set(dir(object))), node.name


def test_the_package_is_marked_typed():
    assert (PACKAGE / "py.typed").is_file()
