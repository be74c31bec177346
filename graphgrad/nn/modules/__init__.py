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
