"""Jacobians, Hessians and Hessian-vector products with graphgrad.func -- the program of
PyTorch's torch.func tutorial "Jacobians, Hessians, hvp, vhp, and more", on graphgrad.

    python examples/func_jacobians_hessians.py

``jacrev``/``jacfwd``/``hessian`` of a small function and of a model's parameters, each
checked against ``autograd.functional`` (the reference computed row by row).  Prints one
line per check with the largest difference; exits non-zero if any check fails.
"""
from __future__ import annotations

import graphgrad as torch
import graphgrad.nn.functional as F
from graphgrad.func import functional_call, hessian, jacfwd, jacrev, jvp, vjp, vmap, grad

torch.manual_seed(0)
D = 16
TOL = 1e-10


def check(name, got, want):
    if isinstance(got, (tuple, list)):
        diff = max(float((g - w).abs().max()) for g, w in zip(got, want))
    else:
        diff = float((got - want).abs().max())
    print(f"{name:<46} max |diff| {diff:.1e}")
    if not diff <= TOL:
        raise SystemExit(f"{name}: differs by {diff}")


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


weight = torch.randn(D, D, dtype=torch.float64)
bias = torch.randn(D, dtype=torch.float64)
x = torch.randn(D, dtype=torch.float64)

# Jacobian with respect to the input, three ways
ref = torch.autograd.functional.jacobian(lambda x: predict(weight, bias, x), x)
check("jacrev(predict, argnums=2)", jacrev(predict, argnums=2)(weight, bias, x), ref)
check("jacfwd(predict, argnums=2)", jacfwd(predict, argnums=2)(weight, bias, x), ref)
# row by row with vjp, as the tutorial does before vmap
_, vjp_fn = vjp(lambda x: predict(weight, bias, x), x)
rows = torch.stack([vjp_fn(e)[0] for e in torch.eye(D, dtype=torch.float64)])
check("vjp row by row", rows, ref)
check("vmap(vjp_fn) over the identity", vmap(vjp_fn)(torch.eye(D, dtype=torch.float64))[0],
      ref)

# with respect to the weight and bias at once
jw, jb = jacrev(predict, argnums=(0, 1))(weight, bias, x)
rw, rb = torch.autograd.functional.jacobian(lambda w, b: predict(w, b, x), (weight, bias))
check("jacrev(predict, argnums=(0, 1))", (jw, jb), (rw, rb))
check("jacfwd(predict, argnums=(0, 1))", jacfwd(predict, argnums=(0, 1))(weight, bias, x),
      (rw, rb))

# Hessians: jacfwd(jacrev), jacrev(jacrev), hessian, against autograd.functional.hessian
def energy(x):
    return predict(weight, bias, x).pow(2).sum()


ref_h = torch.autograd.functional.hessian(energy, x)
check("hessian(energy)", hessian(energy)(x), ref_h)
check("jacfwd(jacrev(energy))", jacfwd(jacrev(energy))(x), ref_h)
check("jacrev(jacrev(energy))", jacrev(jacrev(energy))(x), ref_h)

# batched Jacobians: vmap over a batch of inputs
xs = torch.randn(8, D, dtype=torch.float64)
batched = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, xs)
loop = torch.stack([jacrev(predict, argnums=2)(weight, bias, xi) for xi in xs])
check("vmap(jacrev) over a batch of 8", batched, loop)
# or the Jacobian of the batched function, summed over the batch dim
summed = jacrev(lambda x: predict(weight, bias, x).sum(0))(xs).movedim(1, 0)
check("jacrev of the batch, summed over it", summed, loop)

# Hessian-vector product: forward over reverse
v = torch.randn(D, dtype=torch.float64)
hvp = jvp(grad(energy), (x,), (v,))[1]
check("hvp: jvp(grad(energy))", hvp, torch.autograd.functional.hvp(energy, x, v)[1])


# a model: the Jacobian of its output with respect to its parameters
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(),
                            torch.nn.Linear(8, 3)).double()
params = {k: p.detach() for k, p in model.named_parameters()}
inp = torch.randn(5, 4, dtype=torch.float64)


def model_out(p):
    return functional_call(model, p, (inp,))


jac = jacrev(model_out)(params)
names = list(params)
ref_m = torch.autograd.functional.jacobian(
    lambda *ps: functional_call(model, dict(zip(names, ps)), (inp,)), tuple(params.values()))
check("model: jacrev over the parameters", [jac[k] for k in names], ref_m)
check("model: jacfwd over the parameters", [jacfwd(model_out)(params)[k] for k in names],
      ref_m)
hw = hessian(lambda w: functional_call(model, {**params, "2.weight": w}, (inp,)).pow(2).sum())(
    params["2.weight"])
ref_hw = torch.autograd.functional.hessian(
    lambda w: functional_call(model, {**params, "2.weight": w}, (inp,)).pow(2).sum(),
    params["2.weight"])
check("model: hessian of the last layer's weight", hw, ref_hw)
print("all checks passed")
