"""Counts of repeated declarations in tether, for a checkout at SRC (default: this one's src/).

    python scripts/declaration_counts.py [SRC]

Prints, as JSON:
- `params_fields`: the parameters declared in `Params` classes (a class whose name ends in
  `Params` and that derives from another `...Params` or `pydantic.BaseModel`);
- `repeated_declarations`: the places outside a `Params` class that declare one of those
  parameters again, with the same default: a parameter of an `__init__` signature, or a
  field of a dataclass (its name and its default's source text both equal a declared
  field's); listed as "module:line name";
- `max_iterations_3`: the modules that write the default `max_iterations` of 3;
- `registry_mechanisms`: the ways to keep named things: `Registry` (counted once, where
  it is defined) and every `register*` function that stores into a plain dict;
- `entry_point_loaders`: the modules that call `importlib.metadata.entry_points`;
- `spec_option_syntaxes`: the separators of a spec's options that a parser reads: `;`
  (`tether.specs`) and each `?key=` suffix a module parses, except an old spelling kept
  readable (a constant whose name holds `OLD`), listed apart as `old_spellings_read`.
Used for the closing note of "every parameter declared once, one registry, one spec
syntax"; runs on any revision (`git worktree add /tmp/old REV` and pass /tmp/old/src).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path


def _modules(src: Path) -> dict[str, ast.Module]:
    out = {}
    for path in sorted((src / "tether").rglob("*.py")):
        if "/data/" in str(path) or "__pycache__" in path.parts:
            continue
        out[str(path.relative_to(src))] = ast.parse(path.read_text())
    return out


def _is_params_class(node: ast.ClassDef) -> bool:
    bases = [ast.unparse(b) for b in node.bases]
    return node.name.endswith("Params") and any(
        b.endswith("Params") or b.endswith("BaseModel") for b in bases)


def _default_of(value: ast.expr | None) -> str | None:
    """A field's default as source text: `Field(3, ...)` -> "3"; no default -> None."""
    if value is None:
        return None
    if isinstance(value, ast.Call) and ast.unparse(value.func).endswith("Field"):
        if value.args:
            return ast.unparse(value.args[0])
        for kw in value.keywords:
            if kw.arg == "default":
                return ast.unparse(kw.value)
        return None
    return ast.unparse(value)


def _params_classes(mods: dict[str, ast.Module]) -> dict[str, set[tuple[str, str]]]:
    """Every declaration's (name, default source) pairs, inherited fields included, by the
    declaring class's name (nested ones as `Outer.Params`)."""
    raw: dict[str, tuple[list[str], set[tuple[str, str]]]] = {}
    for tree in mods.values():
        for outer in ast.walk(tree):
            if not isinstance(outer, ast.ClassDef | ast.Module):
                continue
            for node in outer.body:
                if not (isinstance(node, ast.ClassDef) and _is_params_class(node)):
                    continue
                pairs = set()
                for stmt in node.body:
                    if (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                            and "ClassVar" not in ast.unparse(stmt.annotation)):
                        default = _default_of(stmt.value)
                        pairs.add((stmt.target.id, default if default is not None else "?"))
                name = (f"{outer.name}.{node.name}" if isinstance(outer, ast.ClassDef)
                        else node.name)
                raw[name] = ([ast.unparse(b) for b in node.bases], pairs)

    def full(name: str, seen: frozenset[str] = frozenset()) -> set[tuple[str, str]]:
        bases, pairs = raw[name]
        out = set(pairs)
        for base in bases:
            base = base.rsplit(".", 1)[-1] if base not in raw else base
            if base in raw and base not in seen:
                out |= full(base, seen | {name})
        return out

    return {name: full(name) for name in raw}


def _defaulted(fn: ast.FunctionDef) -> list[tuple[ast.arg, ast.expr]]:
    args = fn.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults,
                     strict=True))
    return pairs + [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                    if d is not None]


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in node.decorator_list)


def _has_params(node: ast.ClassDef) -> bool:
    return any((isinstance(s, ast.ClassDef) and s.name == "Params")
               or (isinstance(s, ast.Assign | ast.AnnAssign)
                   and "Params" in ast.unparse(s.targets[0] if isinstance(s, ast.Assign)
                                               else s.target))
               for s in node.body)


def _components(mods: dict[str, ast.Module]) -> set[str]:
    """Classes with a declaration, and the bases of those (a loop strategy's base)."""
    classes = [n for t in mods.values() for n in ast.walk(t) if isinstance(n, ast.ClassDef)]
    out = {c.name for c in classes if _has_params(c)}
    for c in classes:
        if c.name in out:
            out |= {ast.unparse(b).rsplit(".", 1)[-1] for b in c.bases}
    return out


#: a class that is no component but restates this many (name, default) pairs of one
#: declaration is a second declaration of it (a config dataclass, a policy's keywords)
SHADOW = 3


def _repeated(mods: dict[str, ast.Module],
              decls: dict[str, set[tuple[str, str]]]) -> list[str]:
    every = set().union(*decls.values())
    components = _components(mods)
    out = []
    for module, tree in mods.items():
        for cls in ast.walk(tree):
            if not isinstance(cls, ast.ClassDef):
                continue
            found: list[tuple[int, str, str]] = []
            for node in cls.body:
                if isinstance(node, ast.FunctionDef) and node.name == "__init__":
                    found += [(a.lineno, a.arg, ast.unparse(d)) for a, d in _defaulted(node)]
                elif (_is_dataclass(cls) and isinstance(node, ast.AnnAssign)
                      and isinstance(node.target, ast.Name) and node.value is not None):
                    found.append((node.lineno, node.target.id, ast.unparse(node.value)))
            if cls.name in components:
                hits = [(line, name) for line, name, default in found
                        if (name, default) in every]
            else:
                best = max(decls.values(), key=lambda d: sum((n, v) in d for _, n, v in found),
                           default=set())
                hits = [(line, name) for line, name, default in found
                        if (name, default) in best]
                hits = hits if len(hits) >= SHADOW else []
            out += [f"{module}:{line} {cls.name}.{name}" for line, name in hits]
    return sorted(out)


def _max_iterations(mods: dict[str, ast.Module]) -> list[str]:
    out = set()
    for module, tree in mods.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                args = node.args
                positional = args.posonlyargs + args.args
                pairs = list(zip(positional[len(positional) - len(args.defaults):],
                                 args.defaults, strict=True))
                if any(a.arg == "max_iterations" and ast.unparse(d) == "3" for a, d in pairs):
                    out.add(module)
            elif (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                  and node.target.id == "max_iterations" and _default_of(node.value) == "3"):
                out.add(module)
    return sorted(out)


def _stores_in_dict(fn: ast.FunctionDef, dicts: set[str]) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                        and target.value.id in dicts):
                    return True
    return False


def _registries(mods: dict[str, ast.Module]) -> list[str]:
    out = []
    for module, tree in mods.items():
        dicts = {t.target.id for t in tree.body
                 if isinstance(t, ast.AnnAssign) and isinstance(t.target, ast.Name)
                 and isinstance(t.value, ast.Dict)}
        dicts |= {t.targets[0].id for t in tree.body
                  if isinstance(t, ast.Assign) and isinstance(t.targets[0], ast.Name)
                  and isinstance(t.value, ast.Dict)}
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == "Registry":
                out.append(f"{module}: Registry")
            if (isinstance(node, ast.FunctionDef) and node.name.startswith("register")
                    and _stores_in_dict(node, dicts)):
                out.append(f"{module}: {node.name} (a dict)")
    return sorted(out)


def _entry_point_loaders(mods: dict[str, ast.Module]) -> list[str]:
    return sorted(module for module, tree in mods.items()
                  if any(isinstance(n, ast.Call) and ast.unparse(n.func).endswith("entry_points")
                         for n in ast.walk(tree)))


def _spec_syntaxes(mods: dict[str, ast.Module]) -> tuple[list[str], list[str]]:
    """(the syntaxes read as current, the old spellings kept readable)."""
    out, old = [], []
    for module, tree in mods.items():
        if module == "tether/specs.py":
            out.append(f"';' ({module})")
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign | ast.AnnAssign):
                continue
            value = node.value
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)
                    and re.fullmatch(r"\?\w+=", value.value)):
                continue
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            found = f"{value.value!r} ({module})"
            (old if "OLD" in ast.unparse(target).upper() else out).append(found)
    return sorted(set(out)), sorted(set(old))


def main(src: Path) -> dict[str, object]:
    mods = _modules(src)
    decls = _params_classes(mods)
    repeated = _repeated(mods, decls)
    syntaxes, old = _spec_syntaxes(mods)
    return {"params_declarations": len(decls),
            "repeated_declarations": len(repeated), "repeated": repeated,
            "max_iterations_3": _max_iterations(mods),
            "registry_mechanisms": _registries(mods),
            "entry_point_loaders": _entry_point_loaders(mods),
            "spec_option_syntaxes": syntaxes, "old_spellings_read": old}


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "src"
    print(json.dumps(main(root), indent=1))
