"""graphgrad.optim: PyTorch's optimizers and learning-rate schedulers.

``Optimizer`` and SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS follow PyTorch's
single-tensor ("for-loop") implementations, so parameter trajectories match
torch's; ``lr_scheduler`` holds the schedulers.
"""
from . import lr_scheduler  # noqa: F401
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .lbfgs import LBFGS
from .optimizer import Optimizer, register_optimizer_step_post_hook, \
    register_optimizer_step_pre_hook  # noqa: F401
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "LBFGS", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
