"""Random number generators: ``graphgrad.Generator``, ``default_generator`` and the global
seeding functions (``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state`` /
``set_rng_state``).

A Generator wraps a NumPy ``Generator`` over a PCG64 bit generator seeded with the
Generator's seed: two Generators given the same seed produce the same stream, and every
random function that takes ``generator=`` draws from the one it is given (the default
generator otherwise).  The numbers are NumPy's, not PyTorch's (PyTorch's CPU generator is
an mt19937 with its own transforms); see docs/differences.md.
"""
from __future__ import annotations

import os

import numpy as np
from .tensor import device as _device
from .tensor import Tensor

_MASK64 = (1 << 64) - 1
_STATE_BYTES = 8 + 16 + 16 + 1 + 4


def _fresh_seed():
    # (os.urandom, not np.random.SeedSequence: importing numpy.random costs ~15 ms,
    # paid at graphgrad's import by default_generator.seed())
    return int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)


class Generator:
    """A source of random numbers with its own state (PyTorch's ``torch.Generator``)."""

    def __init__(self, device="cpu"):
        self._device = _device(device)
        if self._device.type != "cpu":
            raise RuntimeError(f"Cannot get a {self._device.type.upper()} generator: graphgrad "
                               "runs on the CPU only (use graphgrad.Generator())")
        self._set_seed(67280421310721)  # PyTorch's default seed of a new Generator

    def _set_seed(self, seed):
        self._seed = seed
        self.__dict__.pop("_np", None)  # made from the seed on first use (__getattr__)

    def __getattr__(self, name):
        # the NumPy generator is made on first use, so that importing graphgrad (which
        # seeds default_generator) does not import numpy.random
        if name != "_np" or "_seed" not in self.__dict__:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        self._np = np.random.Generator(np.random.PCG64(self._seed))
        return self._np

    @property
    def device(self):
        return self._device

    def manual_seed(self, seed):
        """Reset the state from ``seed`` (an int; negative values wrap as in PyTorch)."""
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            raise TypeError(f"manual_seed expected an int seed, got {type(seed).__name__}") \
                from None
        self._set_seed(seed & _MASK64)
        return self

    def seed(self):
        """Seed from a non-deterministic source; returns the seed used."""
        s = _fresh_seed()
        self._set_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor (it round-trips through ``set_state``; its bytes are
        not PyTorch's mt19937 state): the seed, PCG64's 128-bit state and increment and its
        buffered 32-bit half, little-endian."""
        st = self._np.bit_generator.state
        blob = (self._seed.to_bytes(8, "little") +
                st["state"]["state"].to_bytes(16, "little") +
                st["state"]["inc"].to_bytes(16, "little") +
                bytes([st["has_uint32"]]) + st["uinteger"].to_bytes(4, "little"))
        return Tensor._wrap(np.frombuffer(blob, np.uint8).copy())

    def set_state(self, new_state):
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError("expected a torch.ByteTensor (a uint8 tensor from get_state()), "
                            f"but got {type(new_state).__name__}"
                            + (f" of dtype {new_state.dtype}" if isinstance(new_state, Tensor)
                               else ""))
        blob = new_state._data.tobytes()
        if len(blob) != _STATE_BYTES:
            raise RuntimeError(f"Expected a state of {_STATE_BYTES} bytes (from get_state() / "
                               f"get_rng_state()), but got {len(blob)}")
        bg = np.random.PCG64()
        bg.state = {"bit_generator": "PCG64",
                    "state": {"state": int.from_bytes(blob[8:24], "little"),
                              "inc": int.from_bytes(blob[24:40], "little")},
                    "has_uint32": blob[40], "uinteger": int.from_bytes(blob[41:45], "little")}
        self._seed = int.from_bytes(blob[:8], "little")
        self._np = np.random.Generator(bg)
        return self

    def __repr__(self):
        return f"<graphgrad.Generator object at {hex(id(self))}>"


default_generator = Generator()
default_generator.seed()


vmap_random_check = None   # set by graphgrad.func.vmap while a vmap level is active
# also set by graphgrad.func.vmap: () -> None, or (batch sizes, wrap) when this thread's vmap
# levels include randomness="different" ones (a tensor drawn from a shape gets their batch
# dims in front, wrapped as their batched value: each example its own draw)
vmap_random_batch = None


def numpy_rng(generator=None):
    """The NumPy Generator to draw from: ``generator``'s, or the default generator's."""
    if vmap_random_check is not None:   # (randomness="error" raises inside vmap)
        vmap_random_check()
    if generator is None:
        return default_generator._np
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a graphgrad.Generator, not "
                        f"{type(generator).__name__}")
    return generator._np


def manual_seed(seed):
    """Seed the default generator (rand, randn, randint, dropout, ...); returns it."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor (see Generator.get_state)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)
