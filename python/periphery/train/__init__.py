"""The Safety40 trainer (``periphery[train]``): ``periphery-train``, ``python -m periphery.train`` or,
for several processes, ``torchrun … -m periphery.train``. The recipe is in the docstrings of
``periphery.train.trainer`` and of the modules it names (one per part), and `docs/guides/training.md`.
"""
