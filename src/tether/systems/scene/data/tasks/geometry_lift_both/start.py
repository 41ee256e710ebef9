import bpy

group = bpy.data.node_groups["Stack"]
group.nodes["Transform Geometry"].inputs["Translation"].default_value = (0.0, 0.0, 0.0)
