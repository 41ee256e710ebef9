"""Whether a built base scene is the one its task.json `scene` spec describes: objects
and their data, materials, modifiers with their node groups and inputs, shape keys.

Both the task check (bpy) and the minibpy double's executor read a built state against
the spec, so the comparison lives apart from either.
"""

from __future__ import annotations

from typing import Any


def spec_problems(spec: dict[str, Any], state: dict[str, Any]) -> list[str]:
    """Where task.json's scene spec and the built base's state disagree."""
    scene = spec.get("scene") or {}
    built = state["structure"]["objects"]
    data_of = {b["from"][1]: b["to"][1] for b in state["bindings"] if b["path"] == "data"}
    mats = {b["from"][1]: b["to"][1] for b in state["bindings"]
            if b["path"] == "material_slots[0].material"}
    problems = []
    want = scene.get("objects", {})
    if set(want) != set(built):
        problems.append(f"spec objects {sorted(want)} != built {sorted(built)}")
    for name, (kind, data) in want.items():
        if name in built and (built[name]["type"], data_of.get(name)) != (kind, data):
            problems.append(f"spec says {name} is {kind} with data {data}, built "
                            f"{built[name]['type']} with {data_of.get(name)}")
    for name, mat in scene.get("materials", {}).items():
        if mats.get(name) != mat:
            problems.append(f"spec says {name} has material {mat}, built {mats.get(name)}")
    problems += _modifier_problems(scene, state)
    problems += _shape_key_problems(scene, state)
    return problems


def _modifier_problems(scene: dict[str, Any], state: dict[str, Any]) -> list[str]:
    """Modifiers [name, type, node group] per object, and each group's inputs
    {name: [identifier, default]} as the modifiers using it hold them on the base."""
    built = state["structure"]["objects"]
    groups = {(b["from"][1], b["path"]): b["to"][1] for b in state["bindings"]
              if b["path"].endswith(".node_group")}
    problems = []
    for name, mods in scene.get("modifiers", {}).items():
        have = [[m, t, groups.get((name, f'modifiers["{m}"].node_group'))]
                for m, t in built.get(name, {}).get("modifiers", [])]
        if have != [list(m) for m in mods]:
            problems.append(f"spec says {name} has modifiers {mods}, built {have}")
    for group, spec in scene.get("node_groups", {}).items():
        users = [(obj, path[: -len(".node_group")]) for (obj, path), g in groups.items()
                 if g == group]
        if not users:
            problems.append(f"spec names node group {group}, which no modifier uses")
        for input_name, (identifier, default) in spec.get("inputs", {}).items():
            for obj, mod in users:
                cell = f'bpy.data.objects["{obj}"].{mod}["{identifier}"]'
                if state["cells"].get(cell) != default:
                    problems.append(f"spec says {group} input {input_name} is {identifier} = "
                                    f"{default}, built {obj} holds {state['cells'].get(cell)}")
    return problems


def _shape_key_problems(scene: dict[str, Any], state: dict[str, Any]) -> list[str]:
    """Shape-key blocks per mesh: the state keys values by Key data block, not by mesh,
    and sorts its cells, so each mesh's block names must be one built Key's (as a set)."""
    prefix = 'bpy.data.shape_keys["'
    keys: dict[str, list[str]] = {}
    for cell in state["cells"]:
        if cell.startswith(prefix):
            key, rest = cell[len(prefix):].split('"].key_blocks["', 1)
            keys.setdefault(key, []).append(rest.rsplit('"].value', 1)[0])
    problems = []
    for mesh, blocks in scene.get("shape_keys", {}).items():
        if sorted(blocks) not in [sorted(b) for b in keys.values()]:
            problems.append(f"spec says mesh {mesh} has shape keys {blocks}, built "
                            f"{sorted(keys.values()) or 'none'}")
    return problems
