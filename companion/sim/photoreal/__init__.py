"""The photoreal renderer: boards built in Blender from randomised designs (proportions, materials, turned
checkers, dice, hands, props, room light) and path-traced on the CPU, then put through a cheap camera. It is a
different process from the flat renderer (`companion.sim.render`) the readers were first trained on, so frames of
its held-out designs measure how a reader does on boards it has never seen. Blender runs in its own Python
(`blender_scene.py`); `spec.py` and `post.py` run here. Command: `python -m companion.sim.photoreal --help`.
"""
