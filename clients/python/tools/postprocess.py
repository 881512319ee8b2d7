"""Post-processing of the generated package: Python 3.9 and 3.10, and a generator name clash.

openapi-python-client writes code for Python 3.11: `X | Y` unions evaluated at run time
(`cast(int | None, v)`, type aliases, isinstance checks) and `typing.Self`. This rewrites a
generated package in place, deterministically:

- every module gets `from __future__ import annotations` (annotations are then never evaluated);
- `typing.Self` is imported from `typing_extensions` for type checkers only;
- `enum.StrEnum` subclasses become `(str, Enum)` (the generated enums define `__str__`);
- `datetime.datetime.fromisoformat` (RFC 3339 with `Z` only from 3.11) becomes dateutil's `isoparse`;
- `cast(A | B, v)` becomes `cast("A | B", v)`;
- `isinstance(v, A | B)` becomes `isinstance(v, (A, B))`;
- any other union evaluated at run time (`Alias = A | B`) becomes `Union[A, B]`;
- a model whose schema has a property named `additionalProperties` (a JSON Schema document,
  such as OGC queryables) would declare `additional_properties` twice, the property and the
  generator's dict of undeclared members, and break: that dict is renamed `additional_members`
  in such a model.

Then every module is parsed with the Python 3.9 grammar and checked for unions left at run
time; anything left is an error, so a generator change cannot slip code past 3.9 unnoticed.

Usage: python3 postprocess.py PACKAGE_DIR
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import List, Optional, Set, Tuple

FUTURE = "from __future__ import annotations"


class _Finder(ast.NodeVisitor):
    """Collects the run-time `|` unions of a module, outermost first."""

    def __init__(self) -> None:
        self.casts: List[ast.expr] = []
        self.instance_checks: List[ast.BinOp] = []
        self.unions: List[ast.BinOp] = []
        self._skip: Set[int] = set()

    # Annotations are strings under `from __future__ import annotations`: not evaluated.
    def visit_arg(self, node: ast.arg) -> None:
        return

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def _visit_function(self, node: ast.AST) -> None:
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
            self.visit(default)
        for decorator in node.decorator_list:
            self.visit(decorator)
        for statement in node.body:
            self.visit(statement)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._visit_function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._visit_function(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name == "cast" and node.args and not isinstance(node.args[0], ast.Constant):
            if _has_union(node.args[0]):
                self.casts.append(node.args[0])
            for arg in node.args[1:]:
                self.visit(arg)
            for keyword in node.keywords:
                self.visit(keyword)
            return
        if name in ("isinstance", "issubclass") and len(node.args) == 2:
            second = node.args[1]
            if isinstance(second, ast.BinOp) and isinstance(second.op, ast.BitOr):
                self.instance_checks.append(second)
                self.visit(node.args[0])
                return
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.BitOr):
            self.unions.append(node)
            return  # the whole chain is rewritten at once
        self.generic_visit(node)


def _has_union(node: ast.AST) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr) for n in ast.walk(node))


def _operands(node: ast.expr) -> List[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _operands(node.left) + _operands(node.right)
    return [node]


class _Source:
    """A module's text with byte offsets for ast positions (col_offset counts UTF-8 bytes)."""

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8")
        self.line_starts = [0]
        for index, byte in enumerate(self.data):
            if byte == 0x0A:
                self.line_starts.append(index + 1)

    def span(self, node: ast.AST) -> Tuple[int, int]:
        start = self.line_starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end = self.line_starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return start, end

    def text(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.data[start:end].decode("utf-8")


def _docstring_end(tree: ast.Module, source: _Source) -> Optional[int]:
    if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant):
        if isinstance(tree.body[0].value.value, str):
            return source.span(tree.body[0])[1]
    return None


def _fix_self_import(text: str) -> str:
    lines = text.split("\n")
    out: List[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("from typing import ") and "Self" in [
            n.strip() for n in stripped[len("from typing import ") :].split(",")
        ]:
            names = [n.strip() for n in stripped[len("from typing import ") :].split(",")]
            rest = [n for n in names if n != "Self"]
            if rest:
                out.append("from typing import " + ", ".join(rest))
            out.append("from typing import TYPE_CHECKING")
            out.append("if TYPE_CHECKING:")
            out.append("    from typing_extensions import Self")
            continue
        out.append(line)
    return "\n".join(out)


def _fix_str_enum(text: str) -> str:
    # enum.StrEnum is 3.11; the generated enums define __str__ themselves.
    if "from enum import StrEnum" not in text:
        return text
    text = text.replace("from enum import StrEnum", "from enum import Enum")
    return text.replace("(StrEnum):", "(str, Enum):")


ISOPARSE = "from dateutil.parser import isoparse as _isoparse"

_MEMBERS_DECLARATION = "additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)"
_MEMBERS_USES = [
    ("field_dict.update(self.additional_properties)", "field_dict.update(self.additional_members)"),
    ("list(self.additional_properties.keys())", "list(self.additional_members.keys())"),
    ("return self.additional_properties[key]", "return self.additional_members[key]"),
    ("self.additional_properties[key] = value", "self.additional_members[key] = value"),
    ("del self.additional_properties[key]", "del self.additional_members[key]"),
    ("return key in self.additional_properties", "return key in self.additional_members"),
]
_MEMBERS_STORE = re.compile(r"^(\s+)(\w+)\.additional_properties = d$", re.M)


def _fix_members_clash(text: str) -> str:
    """Renames the generator's dict of undeclared members where a property takes its name."""
    declarations = re.findall(r"^    additional_properties:", text, re.M)
    if len(declarations) < 2 or _MEMBERS_DECLARATION not in text:
        return text
    if text.count("@_attrs_define") != 1:
        raise SystemExit("an additional_properties clash in a module of several models")
    text = text.replace(
        _MEMBERS_DECLARATION, _MEMBERS_DECLARATION.replace("additional_properties", "additional_members")
    )
    for old, new in _MEMBERS_USES:
        text = text.replace(old, new)
    return _MEMBERS_STORE.sub(r"\1\2.additional_members = d", text)


def rewrite(text: str) -> str:
    text = _fix_members_clash(_fix_str_enum(_fix_self_import(text)))
    # datetime.fromisoformat reads RFC 3339 (`...Z`) only from 3.11 on; dateutil reads it everywhere.
    needs_isoparse = "datetime.datetime.fromisoformat(" in text
    text = text.replace("datetime.datetime.fromisoformat(", "_isoparse(")
    tree = ast.parse(text)
    source = _Source(text)
    finder = _Finder()
    finder.visit(tree)

    edits: List[Tuple[int, int, str]] = []
    for node in finder.casts:
        start, end = source.span(node)
        edits.append((start, end, '"' + source.text(node).replace('"', "'") + '"'))
    for binop in finder.instance_checks:
        start, end = source.span(binop)
        edits.append((start, end, "(" + ", ".join(source.text(o) for o in _operands(binop)) + ")"))
    needs_union = bool(finder.unions)
    for binop in finder.unions:
        start, end = source.span(binop)
        edits.append((start, end, "Union[" + ", ".join(source.text(o) for o in _operands(binop)) + "]"))

    data = source.data
    for start, end, replacement in sorted(edits, reverse=True):
        data = data[:start] + replacement.encode("utf-8") + data[end:]
    text = data.decode("utf-8")

    # `from __future__` first (after the docstring), then what the rewrite needs.
    lines = text.split("\n")
    if FUTURE in lines:
        lines.remove(FUTURE)
    text = "\n".join(lines)
    union_import = "from typing import Union"
    header = [FUTURE] + ([union_import] if needs_union and union_import not in lines else [])
    header += [ISOPARSE] if needs_isoparse and ISOPARSE not in lines else []
    return _insert_after_docstring(text, "\n".join(header) + "\n")


def _insert_after_docstring(text: str, block: str) -> str:
    tree = ast.parse(text)
    source = _Source(text)
    end = _docstring_end(tree, source)
    data = source.data
    if end is None:
        return block + text
    return (data[:end] + b"\n" + block.encode("utf-8") + b"\n" + data[end:].lstrip(b"\n")).decode("utf-8")


def check(path: Path, text: str) -> List[str]:
    problems: List[str] = []
    try:
        tree = ast.parse(text, filename=str(path), feature_version=(3, 9))
    except SyntaxError as error:
        return [f"{path}:{error.lineno}: not Python 3.9 syntax: {error.msg}"]
    finder = _Finder()
    finder.visit(tree)
    for node in finder.casts + finder.instance_checks + finder.unions:  # type: ignore[operator]
        problems.append(f"{path}:{node.lineno}: a union evaluated at run time is left")
    if not any(isinstance(n, ast.ImportFrom) and n.module == "__future__" for n in tree.body):
        problems.append(f"{path}: no `from __future__ import annotations`")
    if len(re.findall(r"^    additional_properties:", text, re.M)) > 1:
        problems.append(f"{path}: two attributes named additional_properties")
    if "datetime.datetime.fromisoformat(" in text:
        problems.append(f"{path}: datetime.fromisoformat is left")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "enum":
            if any(a.name in ("StrEnum", "ReprEnum", "verify") for a in node.names):
                problems.append(f"{path}:{node.lineno}: imports a name enum lacks before 3.11")
        if isinstance(node, ast.ImportFrom) and node.module == "typing":
            if any(a.name in ("Self", "TypeAlias", "ParamSpec", "Concatenate", "TypeGuard") for a in node.names):
                problems.append(f"{path}:{node.lineno}: imports a name typing lacks before 3.11")
    return problems


def main(argv: List[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1])
    problems: List[str] = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        new = text
        for _ in range(10):  # inner unions are rewritten once their outer union is
            again = rewrite(new)
            if again == new:
                break
            new = again
        else:
            problems.append(f"{path.relative_to(root)}: the rewrite does not settle")
        if new != text:
            path.write_text(new, encoding="utf-8")
        problems.extend(check(path.relative_to(root), new))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
