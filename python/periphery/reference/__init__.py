"""The independent PyTorch reference of the Safety40 network (``periphery[train]`` or ``periphery[convert]``).

``periphery.reference.safety40`` holds the model, whose ``state_dict()`` names are the weight files'
tensor names, and the shared helpers (safetensors reader and writer, ProjectionLUT loader, the parity
fixture image). ``periphery-reference --self-test`` checks names, shapes and parameter counts.
"""
