"""Counts of tether's layout, for a checkout at SRC (default: this one's src/).

    python scripts/layout_counts.py [SRC]

Prints, as JSON:
- lines per package (a package: each folder directly under tether/, each system under
  tether/systems/, and the single modules directly under tether/ together as "(root)");
- cross-package import statements (`import` / `from ... import` anywhere in a module,
  functions and TYPE_CHECKING blocks included, relative ones resolved) and how many of them
  name another package's module instead of the package itself (its face);
- the test doubles outside tether/testing (modules whose name says scripted, or minibpy);
- for each system, the folders holding its modules (the ones under tether/systems/NAME
  after the move; before it, the caller passes `--system-files` tables, see below).
Used for the closing note of the move into one kernel and five systems; runs on any
revision (`git worktree add /tmp/old REV` and pass /tmp/old/src).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections import Counter
from pathlib import Path


def modules(src: Path) -> dict[str, Path]:
    found = {}
    for path in (src / "tether").rglob("*.py"):
        if "/data/" in str(path) or "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def package(module: str, src: Path) -> str:
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "systems":
        return ".".join(parts[:3])
    if len(parts) >= 2 and (src / "tether" / parts[1]).is_dir():
        return ".".join(parts[:2])
    return "tether"  # the root's single modules: each is a face of its own


def face_of(module: str, src: Path) -> str:
    pkg = package(module, src)
    return module if pkg == "tether" else pkg


def imports(module: str, path: Path, is_pkg: bool) -> list[str]:
    tree = ast.parse(path.read_text())
    base = module if is_pkg else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith("tether")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base.split(".")
                parts = parts[:len(parts) - (node.level - 1)]
                target = ".".join(parts + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("tether"):
                found.append(target)
    return found


def main(src: Path) -> dict[str, object]:
    mods = modules(src)
    lines: Counter[str] = Counter()
    cross = bypass = 0
    for module, path in mods.items():
        lines[package(module, src)] += len(path.read_text().splitlines())
        for target in imports(module, path, path.name == "__init__.py"):
            if package(target, src) == package(module, src) and package(module, src) != "tether":
                continue
            if face_of(target, src) == face_of(module, src):
                continue
            cross += 1
            if target != face_of(target, src):
                bypass += 1
    doubles = sorted(m for m in mods if ("scripted" in m.rsplit(".", 1)[-1]
                                         or re.search(r"\.minibpy(\.|$)", m))
                     and not m.startswith("tether.testing"))
    systems = {}
    for system in sorted((src / "tether" / "systems").glob("*/")) if (
            src / "tether" / "systems").is_dir() else []:
        folders = {str(p.parent.relative_to(src / "tether"))
                   for p in system.rglob("*.py") if "/data/" not in str(p)}
        systems[system.name] = sorted(folders)
    return {"lines_per_package": dict(sorted(lines.items())),
            "cross_package_imports": cross, "bypassing_a_face": bypass,
            "doubles_outside_testing": doubles, "system_folders": systems}


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "src"
    print(json.dumps(main(root), indent=1))
