"""Node trees of the minibpy test double: shader trees embedded in materials and worlds
(the Blender 4.2 sockets of _sockets.py), and geometry-node groups with an interface whose
input identifiers (`Socket_N`) key the modifier inputs."""

from __future__ import annotations

import copy as _copy
from typing import Any

from tether.scene.minibpy._sockets import NODES
from tether.scene.minibpy.structs import _MISSING, ID, bpy_prop_collection, bpy_struct
from tether.scene.minibpy.values import (
    FLT_MAX,
    as_float,
    as_floats,
    bpy_prop_array,
    clamp,
    f32,
    view,
)  # fmt: skip


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
            return view(bpy_prop_array, self._default, self._lo, FLT_MAX)
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
        base = NODES.get(type) and type.replace("ShaderNode", "")
        name, n = base or type, 1
        while name in self:
            name, n = f"{base or type}.{n:03d}", n + 1
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
        object.__setattr__(self, "default_value", _copy.copy(self.DEFAULTS.get(socket_type)))


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
        index = {}
        for node in self.nodes:
            new = dup.add_node(node.bl_idname, node.name)
            for a, b in zip(list(node.inputs) + list(node.outputs),
                            list(new.inputs) + list(new.outputs), strict=True):
                object.__setattr__(b, "_default", _copy.deepcopy(a._default))
                index[id(a)] = b
        for link in self.links:
            dup.links.new(index[id(link.from_socket)], index[id(link.to_socket)])
        for sock in self.interface.items_tree:
            dup.interface.items_tree.append(_copy.copy(sock))
        object.__setattr__(dup.interface, "_count", self.interface._count)

    def _copy_into(self, dup: Any) -> None:
        dup._reset()
        self._fill(dup)

    def inputs_for_modifier(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for sock in self.interface.items_tree:
            if sock.in_out == "INPUT" and sock.socket_type != "NodeSocketGeometry":
                value = sock.default_value
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
