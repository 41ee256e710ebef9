import bpy

tower = bpy.data.objects["TowerB"]
tower.modifiers["Shape"]["Socket_2"] = 0.4
tower.update_tag()
