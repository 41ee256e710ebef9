import math

import bpy

cone = bpy.data.objects["Cone"]
cone.rotation_euler = (math.pi / 2, 0.0, 0.0)
