"""Neural PU learners (PyTorch, the optional extra ``nn``: ``pip install "pu_lib[nn]"``).

* :class:`NNPUClassifier` (:mod:`pu_lib.neural.nnpu`): uPU, nnPU and imbalanced nnPU
  (``risk``) with a linear model, an MLP or any ``torch.nn.Module``;
* :class:`VPUClassifier` (:mod:`pu_lib.neural.vpu`): VPU, variational PU learning with
  MixUp consistency, which needs no class prior;
* :class:`SelfPUClassifier` (:mod:`pu_lib.neural.selfpu`): Self-PU, nnPU with self-paced
  selection, optional self-calibration and self-distillation (two students, mean teachers).

Importing this package does not import torch; ``fit`` does, through
:func:`pu_lib._optional.require`, and raises an ``ImportError`` naming the extra ``nn``
when it is missing. Training, seeding, threads, devices, early stopping, staged
predictions and pickling are shared (:mod:`pu_lib.neural._training`), as are the networks
(:mod:`pu_lib.neural._models`).
"""

from pu_lib.neural.nnpu import NNPUClassifier
from pu_lib.neural.selfpu import SelfPUClassifier
from pu_lib.neural.vpu import VPUClassifier

__all__ = ["NNPUClassifier", "SelfPUClassifier", "VPUClassifier"]
