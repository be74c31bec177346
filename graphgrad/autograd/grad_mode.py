"""Grad modes (seed 003 §6, seed 004): no_grad, enable_grad, set_grad_enabled, inference_mode.

Each is a context manager and a decorator; the state is thread-local
(``_state.tls``), so two threads do not disturb each other.
"""
from __future__ import annotations

import functools
import inspect

from .._core.state import tls

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


def is_grad_enabled():
    return tls.grad_enabled


def is_inference_mode_enabled():
    return tls.inference


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generators)."""

    def __call__(self, func):
        if inspect.isclass(func):
            import warnings
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                f"should only decorate functions or methods. To preserve the current behavior of "
                f"class decoration, you can directly decorate the `__init__` method and nothing "
                "else.", FutureWarning, stacklevel=2)
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731
            return self.clone()(func)
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    try:
                        response = gen.send(None)
                    except StopIteration as e:
                        return e.value
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:
                        # the generator may finish while handling what was thrown into it
                        with self.clone():
                            try:
                                response = gen.throw(exc)
                            except StopIteration as e:
                                return e.value
                    else:
                        with self.clone():
                            try:
                                response = gen.send(request)
                            except StopIteration as e:
                                return e.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disable gradient recording inside the block (views and versions still tracked)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = tls.grad_enabled
        tls.grad_enabled = False

    def __exit__(self, *exc):
        tls.grad_enabled = self.prev


class enable_grad(_NoParamDecoratorContextManager):
    """Enable gradient recording inside the block (e.g. within no_grad)."""

    def __enter__(self):
        self.prev = tls.grad_enabled
        tls.grad_enabled = True

    def __exit__(self, *exc):
        tls.grad_enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode: as a function call it takes effect at once; also a context manager."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not "
                            f"{type(mode).__name__}")
        self.prev = tls.grad_enabled
        self.mode = mode
        tls.grad_enabled = self.mode

    def __call__(self, func):
        tls.grad_enabled = self.prev
        return super().__call__(func)

    def __enter__(self):
        tls.grad_enabled = self.mode

    def __exit__(self, *exc):
        tls.grad_enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and tensors made inside are inference tensors (no version counter)."""

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # used as a bare decorator: @inference_mode

    def __enter__(self):
        self.prev = (tls.grad_enabled, tls.inference)
        # entering inference mode disables grad mode; leaving it (mode=False) enables it
        tls.grad_enabled = not self.mode
        tls.inference = self.mode
        tls.refresh()

    def __exit__(self, *exc):
        tls.grad_enabled, tls.inference = self.prev
        tls.refresh()

    def clone(self):
        return self.__class__(self.mode)
