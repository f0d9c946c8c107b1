"""Peer benchmarks and evaluation (``periphery[bench]``).

* ``peers``: the same network in PyTorch, ONNX Runtime and OpenVINO (``periphery-bench-peers``);
* ``side_by_side``: ``periphery bench`` and the peers alternated round by round
  (``periphery-bench-side-by-side``);
* ``eval_accuracy``: the tables of `docs/results/accuracy.md` from ``periphery eval``
  (``periphery-eval-accuracy``; standard library only);
* ``eval_calibration``: mount calibration on synthetic drives, `docs/results/calibration-accuracy.md`
  (``periphery-eval-calibration``; standard library only).
"""
