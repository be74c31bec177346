"""``graphgrad.ops.aten``: handles on the table's ops with PyTorch's names, as
``torch.ops.aten`` has them, for code that names ops: selective-checkpoint policies
(``op in [torch.ops.aten.mm.default]``), interposers, ``aten.add.Tensor(x, y)``.

``aten.<name>`` is an :class:`OpOverloadPacket`; its attributes are :class:`OpOverload`s
(``aten.mm.default``, ``aten.add.Tensor``), one object per name.  An overload compares
equal to the table's ``OpDef`` it stands for (what an interposer sees as ``op``, NOTE
[interposition] in interpose.py) and hashes as it, so ``op == aten.mm.default`` and
``op in {aten.mm.default}`` work on the ``op`` an interposer gets; ``overload_of(op)``
gives the overload of an ``OpDef``.

Names: the table's ``"mm"`` is PyTorch's ``mm.default``, ``"sum.dim_IntList"`` its
``sum.dim_IntList``; an op whose first overload PyTorch names otherwise (``mul.Tensor``,
``select.int``) is in ``_PRIMARY``, and table variants PyTorch does not have (``cat.2``,
the two-input ``cat``; ``clone.contiguous``) are its default overload.  Several table ops
can so be one overload; it then equals each and hashes as the first.

Calling an overload runs the op: the public function ``graphgrad.<name>`` or the Tensor
method of that name, else the table entry with positional arguments in its order.
"""
from __future__ import annotations

from .dispatch import dispatch
from .registry import METHODS, OPS, PUBLIC

__all__ = ["OpOverload", "OpOverloadPacket", "overload_of"]

# the PyTorch overload name of a table op named without one, where it is not "default"
_PRIMARY = dict.fromkeys(
    ("add", "sub", "mul", "div", "rsub", "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and",
     "bitwise_or", "bitwise_xor", "index", "slice", "split", "unsafe_split"), "Tensor")
_PRIMARY.update(pow="Tensor_Scalar", where="self", fill="Scalar", select="int",
                transpose="int", unbind="int")
# table variants PyTorch does not name (a specialisation of its default overload)
_VARIANTS = {"clone.contiguous", "clone.channels_last", "_to_copy.channels_last",
             "mean.dtype", "sum.dtype"}


def _torch_name(opname):
    """(packet, overload) of a table op's name."""
    packet, _, ov = opname.partition(".")
    if not ov:
        return packet, _PRIMARY.get(packet, "default")
    if ov.isdigit() or opname in _VARIANTS:
        return packet, "default"
    return packet, ov


_BY_NAME = {}     # (packet, overload) -> [OpDef, ...]
_SEEN = [0]       # how many of OPS (insertion-ordered) _BY_NAME holds
_PACKETS = {}     # name -> OpOverloadPacket
_OF = {}          # OpDef -> its OpOverload


def _table():
    if _SEEN[0] != len(OPS):  # (ops declared on first use join later)
        for name in list(OPS)[_SEEN[0]:]:
            _BY_NAME.setdefault(_torch_name(name), []).append(OPS[name])
        _SEEN[0] = len(OPS)
    return _BY_NAME


class OpOverload:
    """One overload of an op, as ``torch.ops.aten.mm.default``."""

    def __init__(self, packet, overloadname, ops):
        self.overloadpacket = packet
        self._opname = packet._opname
        self._overloadname = overloadname
        self._ops = ops  # the table's OpDefs it stands for ([] for a function-only op)
        self.namespace = "aten"
        self.__name__ = f"{self._opname}.{overloadname}"
        self.__qualname__ = self.__name__
        self._hash = hash(ops[0]) if ops else hash(("aten", self.__name__))

    def name(self):
        """PyTorch's schema name: ``"aten::mm"``, ``"aten::add.Tensor"``."""
        if self._overloadname == "default":
            return f"aten::{self._opname}"
        return f"aten::{self.__name__}"

    def __repr__(self):
        return f"<OpOverload(op='aten.{self._opname}', overload='{self._overloadname}')>"

    def __str__(self):
        return f"aten.{self.__name__}"

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        if other.__class__ is OpOverload:
            return other is self
        if any(other is op for op in self._ops):
            return True
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __call__(self, *args, **kwargs):
        name = self._opname
        fn = PUBLIC.get(name) or METHODS.get(name)
        if fn is not None:
            return fn(*args, **kwargs)
        if self._ops:
            if kwargs:
                op = self._ops[0]
                raise TypeError(f"aten.{self.__name__}: the table entry {op.name} takes its "
                                f"arguments positionally, in the order {list(op.params)}")
            return dispatch(self._ops[0], *args)
        raise RuntimeError(f"aten.{self.__name__} has no implementation in graphgrad")


class OpOverloadPacket:
    """All overloads of one op name, as ``torch.ops.aten.mm``; calling it runs the op."""

    def __init__(self, name):
        self._opname = name
        self.__name__ = name
        self._overloads = {}

    def overloads(self):
        return sorted(ov for (p, ov) in _table() if p == self._opname)

    def __getattr__(self, ov):
        if ov.startswith("__"):
            raise AttributeError(ov)
        got = self._overloads.get(ov)
        if got is None:
            ops = _table().get((self._opname, ov))
            if ops is None:
                generic = ov in ("default", "Tensor", "Scalar") and (
                    self._opname in PUBLIC or self._opname in METHODS)
                if not generic:
                    raise AttributeError(f"The underlying op of 'aten.{self._opname}' has no "
                                         f"overload name '{ov}'")
                ops = []
            got = self._overloads[ov] = OpOverload(self, ov, list(ops))
        return got

    def __repr__(self):
        return f"<OpOverloadPacket(op='aten.{self._opname}')>"

    def __str__(self):
        return f"aten.{self._opname}"

    def __call__(self, *args, **kwargs):
        return self.default(*args, **kwargs)


def _packet(name):
    p = _PACKETS.get(name)
    if p is None:
        if name.startswith("__") or not (name in PUBLIC or name in METHODS or any(
                k[0] == name for k in _table())):
            raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{name}'")
        p = _PACKETS[name] = OpOverloadPacket(name)
    return p


def overload_of(op, inplace=False):
    """The overload an ``OpDef`` is (``inplace``: its in-place form, ``aten.add_.Tensor``)."""
    if not inplace:
        got = _OF.get(op)
        if got is None:
            packet, ov = _torch_name(op.name)
            got = _OF[op] = getattr(_packet(packet), ov)
        return got
    packet, ov = _torch_name(op.name)
    packet += "_"
    p = _PACKETS.get(packet)
    if p is None:
        p = _PACKETS[packet] = OpOverloadPacket(packet)
    got = p._overloads.get(ov)
    if got is None:
        got = p._overloads[ov] = OpOverload(p, ov, [])
    return got


def __getattr__(name):
    return _packet(name)
