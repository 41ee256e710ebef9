"""The issue's programs on Blender's factory start-up scene (Cube, Camera, a 1000 W point
Light): an initial program, a submission that is exactly the goal (cube moved and
turned, light halved), and one whose correct write a helper overwrites later."""

INITIAL = ("import bpy\n"
           "cube = bpy.data.objects['Cube']\n"
           "cube.location = (0.0, 0.0, 0.0)\n"
           "bpy.data.objects['Light'].data.energy = 1000.0\n")
GOAL = ("import bpy\n"
        "cube = bpy.data.objects['Cube']\n"
        "cube.location.x = 1.5\n"
        "cube.rotation_euler.z = 0.6\n"
        "bpy.data.objects['Light'].data.energy = 500.0\n")
DISPLACED = ("import bpy\n"
             "def settle(obj):\n"
             "    obj.location.x = 0.0\n"
             "cube = bpy.data.objects['Cube']\n"
             "cube.location.x = 1.5\n"
             "cube.rotation_euler.z = 0.6\n"
             "bpy.data.objects['Light'].data.energy = 500.0\n"
             "settle(cube)\n")  # the helper puts the cube back: the write of 1.5 is displaced
