"""graphgrad.nn.modules: Module, the containers and (from the layer files) the layers."""
from .module import Module  # noqa: F401  (first: the others subclass it)
from .module import (register_module_backward_hook,  # noqa: F401
                     register_module_buffer_registration_hook, register_module_forward_hook,
                     register_module_forward_pre_hook, register_module_full_backward_hook,
                     register_module_full_backward_pre_hook,
                     register_module_module_registration_hook,
                     register_module_parameter_registration_hook)
from .container import (Container, ModuleDict, ModuleList, ParameterDict,  # noqa: F401
                        ParameterList, Sequential)

__all__ = ["Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict"]

# the layers (helper H): each family file's __all__
from . import (activation, batchnorm, conv, distance, dropout, flatten,  # noqa: E402
               fold, instancenorm, linear, loss, normalization, padding, pooling, rnn, sparse,
               transformer)
from .activation import *  # noqa: F401,F403,E402
from .batchnorm import *  # noqa: F401,F403,E402
from .conv import *  # noqa: F401,F403,E402
from .distance import *  # noqa: F401,F403,E402
from .dropout import *  # noqa: F401,F403,E402
from .flatten import *  # noqa: F401,F403,E402
from .fold import *  # noqa: F401,F403,E402
from .instancenorm import *  # noqa: F401,F403,E402
from .linear import *  # noqa: F401,F403,E402
from .loss import *  # noqa: F401,F403,E402
from .normalization import *  # noqa: F401,F403,E402
from .padding import *  # noqa: F401,F403,E402
from .pooling import *  # noqa: F401,F403,E402
from .rnn import *  # noqa: F401,F403,E402
from .sparse import *  # noqa: F401,F403,E402
from .transformer import *  # noqa: F401,F403,E402

__all__ += (activation.__all__ + batchnorm.__all__ + conv.__all__ + distance.__all__
            + dropout.__all__ + flatten.__all__ + fold.__all__
            + instancenorm.__all__ + linear.__all__ + loss.__all__
            + normalization.__all__ + padding.__all__ + pooling.__all__ + rnn.__all__
            + sparse.__all__ + transformer.__all__)

# the further losses, upsampling and pixel shuffle layers (api-loss branch)
from . import loss_margin, upsampling  # noqa: E402
from .loss_margin import *  # noqa: F401,F403,E402
from .upsampling import *  # noqa: F401,F403,E402
__all__ += loss_margin.__all__ + upsampling.__all__

# MaxUnpool and LPPool layers (api3d branch; the 3-d layers are in their family files)
from . import pooling_more  # noqa: E402
from .pooling_more import *  # noqa: F401,F403,E402
__all__ += pooling_more.__all__

# the decoder side of the Transformer, the lazy modules, EmbeddingBag, LocalResponseNorm and
# ChannelShuffle (apinn branch)
from . import channelshuffle, lazy, transformer_decoder  # noqa: E402
from .channelshuffle import *  # noqa: F401,F403,E402
from .lazy import *  # noqa: F401,F403,E402
from .transformer_decoder import *  # noqa: F401,F403,E402
__all__ += transformer_decoder.__all__ + lazy.__all__ + channelshuffle.__all__
