"""``python -m periphery.train`` (and ``torchrun -m periphery.train``): the trainer's entry point."""
import sys

from periphery.train.trainer import main

sys.exit(main())
