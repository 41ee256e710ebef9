import bpy

tower = bpy.data.objects["TowerA"]
tower.modifiers["Shape"]["Socket_1"] = 1.0
tower.update_tag()
