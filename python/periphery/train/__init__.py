"""The Safety40 trainer (``periphery[train]``): ``periphery-train``, ``python -m periphery.train`` or,
for several processes, ``torchrun … -m periphery.train``. The recipe is in ``periphery.train.trainer``'s
docstring and `docs/guides/training.md`.
"""
