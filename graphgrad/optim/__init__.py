"""graphgrad.optim: PyTorch's optimizers and learning-rate schedulers.

``Optimizer`` and SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS (and ASGD, Adadelta,
Adafactor, Adamax, NAdam, RAdam, Rprop) follow PyTorch's
single-tensor ("for-loop") implementations, so parameter trajectories match
torch's; ``lr_scheduler`` holds the schedulers.
"""
from . import lr_scheduler  # noqa: F401
from ._adafactor import Adafactor
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .radam import RAdam
from .rprop import Rprop
from .optimizer import Optimizer, register_optimizer_step_post_hook, \
    register_optimizer_step_pre_hook  # noqa: F401
from .rmsprop import RMSprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "LBFGS",
           "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam",
           "lr_scheduler"]

# swa_utils: AveragedModel, SWALR, update_bn (apinn branch)
from . import swa_utils  # noqa: E402,F401
__all__ += ["swa_utils"]
