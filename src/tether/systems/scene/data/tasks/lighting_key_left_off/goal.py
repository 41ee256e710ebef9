import bpy

left = bpy.data.objects["KeyL"]
left.data = left.data.copy()
left.data.energy = 0.0
