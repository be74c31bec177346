"""The op names of shared/spec/api.md §3 (the contract); every one must be in the op table.

Names are ``torch``-style paths: ``sin``, ``linalg.inv``, ``nn.functional.softmax``,
``Tensor.__getitem__``.
"""

API_OPS = """
add sub mul div true_divide pow maximum minimum fmod remainder atan2 hypot lerp addcmul addcdiv
where clamp clip
neg abs sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square reciprocal sin cos tan asin
acos atan sinh cosh tanh asinh acosh atanh sigmoid logit erf erfc erfinv floor ceil round trunc
frac relu nan_to_num real imag conj angle polar complex
sum mean prod max min sort topk linalg.slogdet amax amin argmax argmin logsumexp norm
linalg.vector_norm var std cumsum cumprod all any
matmul mm bmm mv dot vdot outer einsum tensordot trace diag diagonal tril triu kron linalg.inv
linalg.det linalg.solve linalg.cholesky linalg.qr linalg.eigh linalg.svd linalg.norm
linalg.matrix_norm
view reshape flatten unflatten squeeze unsqueeze transpose t permute movedim expand expand_as
broadcast_to narrow select unbind split chunk as_strided view_as_real view_as_complex
Tensor.__getitem__
cat stack hstack vstack repeat tile flip roll gather scatter scatter_add index_select index_add
masked_fill masked_select take_along_dim clone nn.functional.pad Tensor.__setitem__
eq ne lt le gt ge isclose allclose isnan isinf isfinite logical_and logical_or logical_not
logical_xor argsort nonzero
nn.functional.linear nn.functional.relu nn.functional.leaky_relu nn.functional.elu
nn.functional.gelu nn.functional.silu nn.functional.softplus nn.functional.sigmoid
nn.functional.tanh nn.functional.softmax nn.functional.log_softmax nn.functional.dropout
nn.functional.mse_loss nn.functional.l1_loss nn.functional.smooth_l1_loss
nn.functional.cross_entropy nn.functional.nll_loss nn.functional.binary_cross_entropy
nn.functional.binary_cross_entropy_with_logits nn.functional.layer_norm
nn.functional.normalize nn.functional.one_hot nn.functional.conv1d nn.functional.conv2d
nn.functional.max_pool2d nn.functional.avg_pool2d nn.functional.embedding
""".split()
