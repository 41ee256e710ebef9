import bpy

tower = bpy.data.objects["TowerA"]
tower.modifiers["Shape"]["Socket_1"] = 2.5
tower.update_tag()
