"""graphgrad.nn: modules, parameters, the functional API and nn.utils."""
from . import functional  # noqa: F401
from . import parameter  # noqa: F401
from .parameter import Buffer, Parameter  # noqa: F401
from . import modules  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from . import utils  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel, DistributedDataParallel  # noqa: F401
from . import init  # noqa: F401,E402  (helper H: weight initialisation)
