import bpy

ball = bpy.data.objects["Ball"]
ball.location = (1.8, 0.0, 1.5)
