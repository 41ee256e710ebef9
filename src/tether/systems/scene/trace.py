"""The write tracer: which property stores a scene program made, and what they read back.

The submitted source (only it: not bpy, not the modules it imports) is rewritten at the
AST level. Every store to an attribute or a subscript, at any depth, in plain, tuple,
multiple-target, augmented and for-loop assignments, and every call of the builtin
`setattr`, goes through a Tracer that performs the store itself and then records it:

    cam.data.lens = 0.5
    ->  t = 0.5; tracer.store_attr(tracer.step_attr(cam, "data"), "lens", t, 1, "assign")

Each sub-expression is evaluated once and in Python's order (value first, then the
target's object, then its key). Right after each store the tracer reads the value back,
so clamping is seen (`lens = 0.5` reads back 1.0). The owner is resolved through
`id_data` / `path_from_id` to (collection, ID name), the RNA path and, for a component of
a vector or array, its index; an embedded node tree resolves to the material, world or
light that holds it. A store the tracer cannot attribute (a vector reached through an
alias, a plain Python object) is an `unresolved` record with its line and the reason,
never a guessed owner. Each event also names the object the store was requested
through (`via`, ["objects", name]): the last Object along the target's chain, or the one
a local alias was requested through, by attribute, subscript or method call, through
any chain of aliases (`m = cube.modifiers.new(...)`, then `m.node_group.nodes[...]...`
is via cube; `bsdf = obj.active_material.node_tree.nodes[...]`, then `bsdf.inputs[0]
.default_value = ...` is via obj). An alias is the value, not its name, so it stays known
when passed to a helper. None, never guessed, when no Object requested the value (a
data block by its own name, `bpy.data....new()`, a call of a plain function), and for a
data block (an ID other than an Object: one Python object however reached) requested
through two different objects, or through one and through none. At most max_events
events are kept (`truncated` says more were made). Recording never changes what the
program does: the store itself runs exactly as untraced and raises the same errors; a
failure inside the recording is itself recorded.

`run_program` runs the compiled program and `program_error` makes its error record, so
the Blender worker and minibpy report a program's failures alike.

Stdlib only, bpy imported lazily: the Blender executor ships this file's text into its
sandboxed worker, which does not see tether.
"""

from __future__ import annotations

import ast
import builtins
import traceback
from typing import Any, TypeGuard

TRACER_NAME = "__tether_tracer__"
DEFAULT_MAX_EVENTS = 10_000
# Vector / Euler / Quaternion / Color component names and their index.
COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3, "r": 0, "g": 1, "b": 2, "a": 3}
# id_type -> bpy.data collection.
COLLECTIONS = {
    "OBJECT": "objects", "MESH": "meshes", "MATERIAL": "materials", "LIGHT": "lights",
    "CAMERA": "cameras", "WORLD": "worlds", "NODETREE": "node_groups", "TEXTURE": "textures",
    "IMAGE": "images", "COLLECTION": "collections", "SCENE": "scenes", "KEY": "shape_keys",
    "ACTION": "actions", "CURVE": "curves", "CURVES": "hair_curves", "LATTICE": "lattices",
    "POINTCLOUD": "pointclouds", "VOLUME": "volumes", "METABALL": "metaballs",
    "LIGHT_PROBE": "lightprobes", "SPEAKER": "speakers", "ARMATURE": "armatures",
    "GREASEPENCIL": "grease_pencils", "FONT": "fonts",
}  # fmt: skip
# IDs that may hold an embedded node tree, searched to name its owner.
EMBEDDING = ("materials", "worlds", "lights", "scenes", "textures", "linestyles")
_RECENT_STEPS = 64
_ALIASES = 256  # local names remembered with their requesting object


# ----------------------------------------------------------------------------- rewrite


class _Rewriter(ast.NodeTransformer):
    def __init__(self) -> None:
        self.count = 0

    def _tmp(self) -> str:
        self.count += 1
        return f"__tether_t{self.count}"

    @staticmethod
    def _tracer(method: str) -> ast.expr:
        return ast.Attribute(ast.Name(TRACER_NAME, ast.Load()), method, ast.Load())

    def _call(self, method: str, *args: ast.expr) -> ast.expr:
        return ast.Call(self._tracer(method), list(args), [])

    def _obj(self, expr: ast.expr) -> ast.expr:
        """The target's object, every attribute / subscript step of its chain made through
        the tracer (each evaluated once, in order): the last step names its parent, the
        whole chain the requesting object (`via`)."""
        if isinstance(expr, ast.Attribute):
            return self._call("step_attr", self._obj(expr.value), ast.Constant(expr.attr))
        if isinstance(expr, ast.Subscript):
            return self._call("step_item", self._obj(expr.value), self.visit(expr.slice))
        if self._method(expr):
            return self._method_call(expr)
        return self.visit(expr)

    @staticmethod
    def _method(expr: ast.expr) -> TypeGuard[ast.Call]:
        return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)

    def _method_call(self, call: ast.Call) -> ast.expr:
        """`chain.name(args)` with the method fetched through the tracer (Python's order:
        the method, then the arguments) and called where the program calls it (a callee
        that inspects its caller's frame sees the program's); what it returns is
        remembered as requested through the object the chain was (so `m =
        cube.modifiers.new(...)` is via cube)."""
        func = call.func
        assert isinstance(func, ast.Attribute)
        bound = self._call("bound", self._obj(func.value), ast.Constant(func.attr))
        args = [self.visit(a) for a in call.args]
        keywords = [self.visit(k) for k in call.keywords]
        return self._call("returned", ast.Call(bound, args, keywords))

    def _store(self, target: ast.expr, value: ast.expr, line: int, kind: str) -> list[ast.stmt]:
        """Statements that store `value` (an expression evaluated once) into target."""
        if isinstance(target, ast.Attribute):
            call = self._call(
                "store_attr", self._obj(target.value), ast.Constant(target.attr), value,
                ast.Constant(line), ast.Constant(kind),
            )  # fmt: skip
            return [ast.Expr(call)]
        if isinstance(target, ast.Subscript):
            call = self._call(
                "store_item", self._obj(target.value), self.visit(target.slice), value,
                ast.Constant(line), ast.Constant(kind),
            )  # fmt: skip
            return [ast.Expr(call)]
        if isinstance(target, ast.Tuple | ast.List):
            # Unpack into temporaries first (as UNPACK_SEQUENCE does), then store each
            # element left to right, evaluating its target's object only then.
            names: list[ast.expr] = []
            inner: list[tuple[ast.expr, str]] = []
            for elt in target.elts:
                tmp = self._tmp()
                real = elt.value if isinstance(elt, ast.Starred) else elt
                name: ast.expr = ast.Name(tmp, ast.Store())
                starred = isinstance(elt, ast.Starred)
                names.append(ast.Starred(name, ast.Store()) if starred else name)
                inner.append((real, tmp))
            out: list[ast.stmt] = [ast.Assign([ast.Tuple(names, ast.Store())], value)]
            for real, tmp in inner:
                out += self._store(real, ast.Name(tmp, ast.Load()), line, kind)
            return out
        return [ast.Assign([target], value)]  # a name (or starred name): not a scene write

    def _plain(self, target: ast.expr) -> bool:
        return isinstance(target, ast.Name)

    def visit_Assign(self, node: ast.Assign) -> Any:
        if all(self._plain(t) for t in node.targets):
            if isinstance(node.value, ast.Attribute | ast.Subscript):
                # A local alias (`bsdf = obj.active_material...`): remember who it was
                # requested through, so later stores through the alias name that object.
                node.value = self._call("alias", self._obj(node.value))
                return self._located([node], node)[0]
            if self._method(node.value):  # `m = cube.modifiers.new(...)`: the same
                node.value = self._method_call(node.value)
                return self._located([node], node)[0]
            node.value = self.visit(node.value)
            return node
        node.value = self.visit(node.value)
        tmp = self._tmp()
        out: list[ast.stmt] = [ast.Assign([ast.Name(tmp, ast.Store())], node.value)]
        for target in node.targets:
            out += self._store(target, ast.Name(tmp, ast.Load()), node.lineno, "assign")
        return self._located(out, node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        if node.value is None or self._plain(node.target):
            return self.generic_visit(node)
        assign = ast.Assign([node.target], node.value)
        ast.copy_location(assign, node)
        return self.visit_Assign(assign)

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        node.value = self.visit(node.value)
        target = node.target
        if self._plain(target):
            return node
        obj, val = self._tmp(), self._tmp()
        out: list[ast.stmt] = []
        if isinstance(target, ast.Attribute):
            out.append(ast.Assign([ast.Name(obj, ast.Store())], self._obj(target.value)))
            read: ast.expr = ast.Attribute(ast.Name(obj, ast.Load()), target.attr, ast.Load())
            store = self._call(
                "store_attr", ast.Name(obj, ast.Load()), ast.Constant(target.attr),
                ast.Name(val, ast.Load()), ast.Constant(node.lineno), ast.Constant("aug"),
            )  # fmt: skip
        else:
            assert isinstance(target, ast.Subscript)
            key = self._tmp()
            out.append(ast.Assign([ast.Name(obj, ast.Store())], self._obj(target.value)))
            out.append(ast.Assign([ast.Name(key, ast.Store())], self.visit(target.slice)))
            read = ast.Subscript(ast.Name(obj, ast.Load()), ast.Name(key, ast.Load()), ast.Load())
            store = self._call(
                "store_item", ast.Name(obj, ast.Load()), ast.Name(key, ast.Load()),
                ast.Name(val, ast.Load()), ast.Constant(node.lineno), ast.Constant("aug"),
            )  # fmt: skip
        out.append(ast.Assign([ast.Name(val, ast.Store())], read))
        # The in-place operator on a name keeps __iadd__ & co. semantics exactly.
        out.append(ast.AugAssign(ast.Name(val, ast.Store()), node.op, node.value))
        out.append(ast.Expr(store))
        return self._located(out, node)

    def _loop_target(self, node: ast.For | ast.AsyncFor | ast.withitem, field: str) -> list:
        target = getattr(node, field)
        if target is None or self._plain(target):
            return []
        tmp = self._tmp()
        setattr(node, field, ast.Name(tmp, ast.Store()))
        return self._store(target, ast.Name(tmp, ast.Load()), target.lineno, "assign")

    def visit_For(self, node: ast.For) -> Any:
        node.iter = self.visit(node.iter)
        prefix = self._loop_target(node, "target")
        node.body = prefix + [s for stmt in node.body for s in _as_list(self.visit(stmt))]
        node.orelse = [s for stmt in node.orelse for s in _as_list(self.visit(stmt))]
        return self._located([node], node)[0]

    # ast hands AsyncFor nodes here, which visit_For handles alike (same fields)
    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        f = node.func
        if (
            isinstance(f, ast.Name) and f.id == "setattr" and len(node.args) == 3
            and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)
        ):  # fmt: skip
            # The name `setattr` is passed in: a program that rebinds it calls its own.
            return self._call("setattr_call", f, *node.args, ast.Constant(node.lineno))
        return node

    @staticmethod
    def _located(stmts: list[ast.stmt], node: ast.AST) -> list[ast.stmt]:
        for stmt in stmts:
            ast.copy_location(stmt, node)
            for child in ast.walk(stmt):
                if "lineno" in child._attributes and not hasattr(child, "lineno"):
                    ast.copy_location(child, node)
        return stmts


def _as_list(x: Any) -> list:
    return x if isinstance(x, list) else [x]


def rewrite(source: str, filename: str = "<program>") -> ast.Module:
    """The traced form of source (raises SyntaxError as compile() would)."""
    tree = ast.parse(source, filename)
    tree = _Rewriter().visit(tree)
    return ast.fix_missing_locations(tree)


def compile_traced(source: str, filename: str = "<program>") -> Any:
    """A code object running source with every store routed through TRACER_NAME."""
    return compile(rewrite(source, filename), filename, "exec")


# ----------------------------------------------------------------------------- runtime


TEXT_TAIL = 4000  # the most of an error's message and traceback an execution reports


def program_error(kind: str, exc: BaseException, filename: str) -> dict[str, Any]:
    """An execution's error record; `line` is the program's own (its last frame in
    `filename`, else the line a SyntaxError names)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return {
        "kind": kind, "type": type(exc).__qualname__, "message": str(exc)[-TEXT_TAIL:],
        "line": frames[-1].lineno if frames else getattr(exc, "lineno", None),
        "traceback": text[-TEXT_TAIL:],
    }  # fmt: skip


def run_program(code: Any, env: dict[str, Any], filename: str) -> dict[str, Any] | None:
    """Run a compiled program in the globals `env`: None when it ran to its end, else its
    error record. A quit (SystemExit) is `unsupported`: it would end the executor."""
    try:
        exec(code, env)
    except SystemExit as exc:
        error = program_error("unsupported", exc, filename)
        error["message"] = "the program tried to quit (SystemExit)"
        return error
    except BaseException as exc:  # whatever a program raises is its own error
        return program_error("raised", exc, filename)
    return None


class Tracer:
    """Performs and records the stores of a rewritten program (see the module doc)."""

    def __init__(self, max_events: int = DEFAULT_MAX_EVENTS, bpy: Any = None) -> None:
        """bpy: the module owners resolve in (minibpy passes itself); default: import bpy."""
        self.max_events = max_events
        self.events: list[dict[str, Any]] = []
        self.unresolved: list[dict[str, Any]] = []
        self.truncated = False
        self._steps: list[tuple[Any, Any, str, Any, Any]] = []  # (result, parent, mode, key, via)
        self._aliases: dict[int, tuple[Any, Any]] = {}  # id(value) -> (value, its object)
        self._pending: list[Any] = []  # via of each method fetched by bound(), until called
        if bpy is None:
            try:
                import bpy  # type: ignore[no-redef]  # rebinds the parameter to the real module
            except ImportError:  # plain Python: nothing can be attributed to a scene
                bpy = None
        self._bpy = bpy

    # The steps to a target's object: remembered so a vector component names its owner.
    def step_attr(self, obj: Any, name: str) -> Any:
        result = getattr(obj, name)
        self._remember(result, obj, "attr", name)
        return result

    def step_item(self, obj: Any, key: Any) -> Any:
        result = obj[key]
        self._remember(result, obj, "item", key)
        return result

    def alias(self, value: Any) -> Any:
        """A value bound to a local name: keep the object it was requested through."""
        via = self._via(value)
        self._steps.clear()  # steps stay statement-local (a vector alias: unresolved)
        self._hold(value, via)
        return value

    def _hold(self, value: Any, via: Any) -> None:
        """Remember value as requested through `via`. A data block (an ID other than an
        Object) is one Python object however it is reached, so one requested through
        two different objects, or also through none (`bpy.data...`, a `new()`), is held
        with no object: ambiguous, never guessed."""
        is_block = self._is_id(value) and not self._is_object(value)
        if is_block:
            held = self._aliases.get(id(value))
            if held is not None and held[0] is value and held[1] is not via:
                via = None
        elif via is None:
            return
        self._aliases[id(value)] = (value, via)  # holding value keeps its id unique
        if len(self._aliases) > _ALIASES:
            del self._aliases[next(iter(self._aliases))]

    def bound(self, obj: Any, name: str) -> Any:
        """A method fetched from obj; the object obj was requested through waits on a
        stack for returned(). Calls nest, so the stack is LIFO; a call that raised leaves
        its entry below the later ones, never above them (the statement is abandoned)."""
        method = getattr(obj, name)
        self._pending.append(self._via(obj))
        if len(self._pending) > _ALIASES:
            del self._pending[0]
        return method

    def returned(self, result: Any) -> Any:
        """The result of the innermost call fetched by bound(): remembered as requested
        through that call's object when it is a Blender value (not an Object)."""
        via = self._pending.pop() if self._pending else None
        if self._is_struct(result) and not self._is_object(result):
            self._hold(result, via)
        return result

    def _remember(self, result: Any, parent: Any, mode: str, key: Any) -> None:
        # The requesting object: the result itself when it is an Object, else whoever
        # its parent was requested through (the last Object along the chain).
        via = result if self._is_object(result) else self._via(parent)
        self._steps.append((result, parent, mode, key, via))
        if len(self._steps) > _RECENT_STEPS:
            del self._steps[: _RECENT_STEPS // 2]

    def _via(self, obj: Any) -> Any:
        """The Object obj was requested through, or None when not known (never guessed)."""
        if self._is_object(obj):
            return obj
        for step in reversed(self._steps):
            if step[0] is obj:
                return step[4]
        held = self._aliases.get(id(obj))
        return held[1] if held is not None and held[0] is obj else None

    def _parent_of(self, obj: Any) -> tuple[Any, str, Any] | None:
        for i in range(len(self._steps) - 1, -1, -1):
            if self._steps[i][0] is obj:
                _, parent, mode, key, _ = self._steps.pop(i)
                return parent, mode, key
        return None

    # The stores themselves: performed first, exactly as untraced code would.
    def store_attr(self, obj: Any, name: str, value: Any, line: int, kind: str = "assign") -> None:
        setattr(obj, name, value)
        self._record(obj, "attr", name, value, line, kind)

    def store_item(self, obj: Any, key: Any, value: Any, line: int, kind: str = "assign") -> None:
        obj[key] = value
        self._record(obj, "item", key, value, line, kind)

    def setattr_call(self, fn: Any, obj: Any, name: Any, value: Any, line: int) -> None:
        if fn is not builtins.setattr:
            return fn(obj, name, value)
        setattr(obj, name, value)
        self._record(obj, "attr", name, value, line, "setattr")
        return None

    def _record(self, obj: Any, mode: str, key: Any, value: Any, line: int, kind: str) -> None:
        try:
            requester = self._via(obj)
            via = None if requester is None else ["objects", requester.name]
        except Exception:  # recording must never break the program
            via = None
        parent = self._parent_of(obj)
        self._steps.clear()  # the statement's chain is spent: no later store inherits it
        if len(self.events) + len(self.unresolved) >= self.max_events:
            self.truncated = True
            return
        try:
            readback = getattr(obj, key) if mode == "attr" else obj[key]
            where = self._resolve(obj, mode, key, parent)
        except Exception as exc:  # recording must never break the program
            where = f"the tracer failed: {type(exc).__name__}: {exc}"
            readback = None
        target = f".{key}" if mode == "attr" else f"[{key!r}]"
        if isinstance(where, str):
            self.unresolved.append(
                {"line": line, "kind": kind, "target": target, "reason": where,
                 "value": plain(value)}
            )  # fmt: skip
            return
        owner, path, index = where
        is_binding = self._is_id(value) or self._is_id(readback)
        self.events.append({
            "owner": owner, "path": path, "index": index, "value": plain(value),
            "readback": plain(readback), "line": line,
            "kind": "binding" if is_binding else kind, "via": via,
        })  # fmt: skip

    # Owner resolution.
    def _is_struct(self, obj: Any) -> bool:
        return self._bpy is not None and isinstance(obj, self._bpy.types.bpy_struct)

    def _is_object(self, obj: Any) -> bool:
        return self._bpy is not None and isinstance(obj, self._bpy.types.Object)

    def _is_id(self, obj: Any) -> bool:
        return self._bpy is not None and isinstance(obj, self._bpy.types.ID)

    def _resolve(
        self, obj: Any, mode: str, key: Any, parent: tuple[Any, str, Any] | None
    ) -> tuple[list[str], str, int | None] | str:
        if self._bpy is None:
            return "bpy is not loaded: no scene owner"
        index = None
        if self._is_struct(obj):
            base, tail = obj, _path_step(mode, key)
        elif parent is not None and self._is_struct(parent[0]):
            base, tail = parent[0], _path_step(parent[1], parent[2])
            if mode == "item" and isinstance(key, int):
                index = key
            elif mode == "attr" and key in COMPONENTS:
                index = COMPONENTS[key]
            else:
                return f"{_path_step(mode, key)} of {tail.lstrip('.')} is not one component"
        elif parent is None:
            return (
                f"{type(obj).__name__} was not reached through an attribute in this "
                "statement (an alias of a vector, colour or array, or not a Blender value)"
            )
        else:
            return f"{type(parent[0]).__name__} is not a Blender struct"
        try:
            prefix = "" if self._is_id(base) else base.path_from_id()
        except ValueError as exc:
            return f"no path from its ID: {exc}"
        path = (prefix + tail) if prefix else tail.lstrip(".")
        id_data = base.id_data
        if getattr(id_data, "is_embedded_data", False):
            holder = self._embedding(id_data)
            if holder is None:
                return f"embedded {type(id_data).__name__} {id_data.name!r} with no known holder"
            id_data, path = holder[0], f"{holder[1]}.{path}"
        collection = COLLECTIONS.get(getattr(id_data, "id_type", ""))
        if collection is None:
            return f"ID type {getattr(id_data, 'id_type', '?')} has no known collection"
        return [collection, id_data.name], path, index

    def _embedding(self, tree: Any) -> tuple[Any, str] | None:
        data = self._bpy.data
        for name in EMBEDDING:
            for holder in getattr(data, name, ()):
                if getattr(holder, "node_tree", None) == tree:
                    return holder, "node_tree"
        return None


def _path_step(mode: str, key: Any) -> str:
    if mode == "attr":
        return f".{key}"
    if isinstance(key, str):
        return '["' + key.replace("\\", "\\\\").replace('"', '\\"') + '"]'
    return f"[{key!r}]"


def plain(value: Any, depth: int = 0) -> Any:
    """A JSON-able form of a value: numbers, strings, lists; IDs as {"id": [coll, name]}."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else repr(value)
    id_type = getattr(value, "id_type", None)
    if isinstance(id_type, str) and hasattr(value, "name"):
        return {"id": [COLLECTIONS.get(id_type, id_type.lower()), value.name]}
    if depth < 3 and not isinstance(value, dict):
        try:
            items = list(value) if len(value) <= 64 else None  # vectors, arrays, tuples
        except TypeError:
            items = None
        if items is not None and all(isinstance(v, int | float | bool) or hasattr(v, "__len__")
                                     for v in items):
            return [plain(v, depth + 1) for v in items]
    return repr(value)[:200]
