"""Node trees of the minibpy test double: shader trees embedded in materials and worlds
(the Blender 4.2 sockets of _sockets.py), and geometry-node groups with an interface whose
input identifiers (`Socket_N`) key the modifier inputs."""

from __future__ import annotations

import copy as _copy
from typing import Any

from tether.testing.minibpy._sockets import NAMES, NODES
from tether.testing.minibpy.structs import _MISSING, ID, bpy_prop_collection, bpy_struct
from tether.testing.minibpy.values import (
    FLT_MAX,
    Euler,
    Vector,
    as_float,
    as_floats,
    bpy_prop_array,
    clamp,
    f32,
    view,
)  # fmt: skip

GROUP_NODES = {"NodeGroupInput": "INPUT", "NodeGroupOutput": "OUTPUT"}
VIRTUAL = ("", "__extend__", "NodeSocketVirtual", True, None)


def _array_class(bl_idname: str) -> type:
    """What a vector socket's default_value is on bpy 4.2: a Euler for rotations, a
    Vector for the subtyped vectors (Translation, XYZ, ...), else a bpy_prop_array."""
    if bl_idname == "NodeSocketRotation":
        return Euler
    if bl_idname.startswith("NodeSocketVector") and bl_idname != "NodeSocketVector":
        return Vector
    return bpy_prop_array


class NodeSocket(bpy_struct):
    def __init__(self, tree: NodeTree, node: Node, index: int, spec: tuple, output: bool):
        side = "outputs" if output else "inputs"
        super().__init__(tree, f'nodes["{node.name}"].{side}[{index}]')
        name, identifier, bl_idname, *rest = spec
        object.__setattr__(self, "_node", node)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "identifier", identifier)
        object.__setattr__(self, "bl_idname", bl_idname)
        object.__setattr__(self, "enabled", rest[0] if rest else True)
        object.__setattr__(self, "is_output", output)
        default = rest[1] if len(rest) > 1 else None
        object.__setattr__(self, "_default", _copy.copy(default))
        # Blender clamps colour sockets at 0; float sockets are stored as given (tested).
        object.__setattr__(self, "_lo", 0.0 if bl_idname == "NodeSocketColor" else -FLT_MAX)

    @property
    def node(self) -> Node:
        return self._node

    @property
    def default_value(self) -> Any:
        if self._default is None:
            raise AttributeError(f"{self.bl_idname!r} object has no attribute 'default_value'")
        if isinstance(self._default, list):
            return view(_array_class(self.bl_idname), self._default, self._lo, FLT_MAX)
        return self._default

    @default_value.setter
    def default_value(self, value: Any) -> None:
        if self._default is None:
            raise AttributeError(f"{self.bl_idname!r} object has no attribute 'default_value'")
        if isinstance(self._default, list):
            self._default[:] = as_floats(value, len(self._default), self._lo, FLT_MAX)
        else:
            object.__setattr__(self, "_default", clamp(as_float(value, "default_value"),
                                                       self._lo, FLT_MAX))


class SocketCollection(bpy_prop_collection):
    def _lookup(self, key: str) -> Any:
        for s in self._items:  # unavailable sockets are not found by name (as in bpy)
            if s.name == key and s.enabled:
                return s
        return _MISSING


class Node(bpy_struct):
    def __init__(self, tree: NodeTree, name: str, bl_idname: str) -> None:
        super().__init__(tree, f'nodes["{name}"]')
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "bl_idname", bl_idname)
        spec = NODES.get(bl_idname, {"inputs": [], "outputs": []})
        ins, outs = SocketCollection(), SocketCollection()
        ins._items = [NodeSocket(tree, self, i, s, False) for i, s in enumerate(spec["inputs"])]
        outs._items = [NodeSocket(tree, self, i, s, True) for i, s in enumerate(spec["outputs"])]
        object.__setattr__(self, "inputs", ins)
        object.__setattr__(self, "outputs", outs)
        if bl_idname in GROUP_NODES:
            self.sync_interface()

    def sync_interface(self) -> None:
        """A group input (output) node's outputs (inputs) are the group interface's input
        (output) sockets, keyed by their identifiers, then the virtual `__extend__` one;
        sockets that exist are kept (links hold them), new ones are added before it."""
        in_out = GROUP_NODES[self.bl_idname]
        output = in_out == "INPUT"
        side = self.outputs if output else self.inputs
        have = {s.identifier: s for s in side._items}
        items: list[NodeSocket] = []
        for item in self._owner.interface.items_tree:
            if item.in_out != in_out:
                continue
            sock = have.get(item.identifier)
            if sock is None:
                default = _copy.copy(item._default)
                spec = (item.name, item.identifier, item.socket_type, True, default)
                sock = NodeSocket(self._owner, self, len(items), spec, output)
            items.append(sock)
        items.append(NodeSocket(self._owner, self, len(items), VIRTUAL, output))
        for i, sock in enumerate(items):  # indices move when a socket is added
            kind = "outputs" if output else "inputs"
            object.__setattr__(sock, "_path", f'nodes["{self.name}"].{kind}[{i}]')
        side._items = items


class NodeLink(bpy_struct):
    def __init__(self, tree: NodeTree, a: NodeSocket, b: NodeSocket) -> None:
        super().__init__(tree, "")
        object.__setattr__(self, "from_socket", a)
        object.__setattr__(self, "to_socket", b)
        object.__setattr__(self, "from_node", a.node)
        object.__setattr__(self, "to_node", b.node)


class Nodes(bpy_prop_collection):
    def __init__(self, tree: NodeTree) -> None:
        super().__init__()
        self._tree = tree

    def new(self, type: str) -> Node:  # noqa: A002 (bpy's keyword)
        base = NAMES.get(type, type)
        name, n = base, 1
        while name in self:
            name, n = f"{base}.{n:03d}", n + 1
        node = Node(self._tree, name, type)
        self._items.append(node)
        return node


class Links(bpy_prop_collection):
    def __init__(self, tree: NodeTree) -> None:
        super().__init__()
        self._tree = tree

    def new(self, a: NodeSocket, b: NodeSocket) -> NodeLink:
        link = NodeLink(self._tree, a, b)
        self._items.append(link)
        return link


class InterfaceSocket(bpy_struct):
    DEFAULTS = {"NodeSocketFloat": 0.0, "NodeSocketInt": 0, "NodeSocketBool": False,
                "NodeSocketVector": [0.0, 0.0, 0.0]}

    def __init__(self, tree: NodeTree, identifier: str, name: str, in_out: str,
                 socket_type: str) -> None:
        super().__init__(tree, "")
        for k, v in (("identifier", identifier), ("name", name), ("in_out", in_out),
                     ("socket_type", socket_type)):
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_default", _copy.copy(self.DEFAULTS.get(socket_type)))

    @property
    def default_value(self) -> Any:
        """The default a modifier's input takes when the group is assigned (float32)."""
        if self._default is None:
            raise AttributeError(f"'NodeTreeInterfaceSocket{self.socket_type[10:]}' object "
                                 "has no attribute 'default_value'")
        return view(Vector, self._default) if isinstance(self._default, list) \
            else self._default

    @default_value.setter
    def default_value(self, value: Any) -> None:
        if self._default is None:
            raise AttributeError(f"'NodeTreeInterfaceSocket{self.socket_type[10:]}' object "
                                 "has no attribute 'default_value'")
        if isinstance(self._default, list):
            self._default[:] = as_floats(value, len(self._default), -FLT_MAX, FLT_MAX)
        elif isinstance(self._default, bool):
            object.__setattr__(self, "_default", bool(value))
        elif isinstance(self._default, int):
            object.__setattr__(self, "_default", int(value))
        else:
            object.__setattr__(self, "_default", clamp(as_float(value, "default_value"),
                                                       -FLT_MAX, FLT_MAX))

    def copy_to(self, tree: NodeTree) -> InterfaceSocket:
        dup = InterfaceSocket(tree, self.identifier, self.name, self.in_out, self.socket_type)
        object.__setattr__(dup, "_default", _copy.copy(self._default))
        return dup


class Interface(bpy_struct):
    def __init__(self, tree: NodeTree) -> None:
        super().__init__(tree, "interface")
        object.__setattr__(self, "items_tree", [])
        object.__setattr__(self, "_count", 0)

    def new_socket(self, name: str, *, in_out: str = "INPUT",
                   socket_type: str = "NodeSocketFloat", **_: Any) -> InterfaceSocket:
        sock = InterfaceSocket(self._owner, f"Socket_{self._count}", name, in_out, socket_type)
        object.__setattr__(self, "_count", self._count + 1)
        self.items_tree.append(sock)
        for node in self._owner.nodes:  # group input / output nodes show the new socket
            if node.bl_idname in GROUP_NODES:
                node.sync_interface()
        return sock


class NodeTree(ID):
    id_type = "NODETREE"
    _data_name = "node_groups"

    def __init__(self, main: Any, name: str, bl_idname: str, embedded: bool = False) -> None:
        super().__init__(main, name)
        object.__setattr__(self, "bl_idname", bl_idname)
        object.__setattr__(self, "is_embedded_data", embedded)
        self._reset()

    def add_node(self, bl_idname: str, name: str) -> Node:
        node = Node(self, name, bl_idname)
        self.nodes._items.append(node)
        return node

    def _reset(self) -> None:
        object.__setattr__(self, "nodes", Nodes(self))
        object.__setattr__(self, "links", Links(self))
        object.__setattr__(self, "interface", Interface(self))

    def clone(self) -> NodeTree:
        """A deep copy (an embedded tree is copied with its holder)."""
        dup = NodeTree(self._main, self._name, self.bl_idname, self.is_embedded_data)
        self._fill(dup)
        return dup

    def _fill(self, dup: NodeTree) -> None:
        # The interface first: group input / output nodes take their sockets from it.
        for sock in self.interface.items_tree:
            dup.interface.items_tree.append(sock.copy_to(dup))
        object.__setattr__(dup.interface, "_count", self.interface._count)
        index = {}
        for node in self.nodes:
            new = dup.add_node(node.bl_idname, node.name)
            for a, b in zip(list(node.inputs) + list(node.outputs),
                            list(new.inputs) + list(new.outputs), strict=True):
                object.__setattr__(b, "_default", _copy.deepcopy(a._default))
                index[id(a)] = b
        for link in self.links:
            dup.links.new(index[id(link.from_socket)], index[id(link.to_socket)])

    def _copy_into(self, dup: Any) -> None:
        dup._reset()
        self._fill(dup)

    def inputs_for_modifier(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for sock in self.interface.items_tree:
            if sock.in_out == "INPUT" and sock.socket_type != "NodeSocketGeometry":
                value = sock._default
                out[sock.identifier] = [f32(v) for v in value] if isinstance(value, list) \
                    else (f32(value) if isinstance(value, float) else value)
                out[sock.identifier + "_use_attribute"] = False
                out[sock.identifier + "_attribute_name"] = ""
        return out


def shader_tree(main: Any, nodes: tuple[tuple[str, str], ...],
                links: tuple[tuple[str, str, str, str], ...]) -> NodeTree:
    """An embedded shader tree with the given (bl_idname, name) nodes, linked by name."""
    tree = NodeTree(main, "Shader Nodetree", "ShaderNodeTree", embedded=True)
    for bl_idname, name in nodes:
        tree.add_node(bl_idname, name)
    for a, sa, b, sb in links:
        tree.links.new(tree.nodes[a].outputs[sa], tree.nodes[b].inputs[sb])
    return tree
