import bpy

tower = bpy.data.objects["TowerB"]
tower.modifiers["Shape"]["Socket_2"] = 1.0
tower.update_tag()
