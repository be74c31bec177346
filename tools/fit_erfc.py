"""Print the Chebyshev coefficients of graphgrad/ops/kernels/special.py's erfc series.

f(u) = log(erfc(z) / t) + z^2 with t = 2 / (2 + z), u = 2t - 1 in (-1, 1], z >= 0;
interpolated at 80 Chebyshev points in 50-digit arithmetic (needs mpmath, a SymPy
dependency; not needed at run time).  Run: python -m tools.fit_erfc
"""
import mpmath as mp


def coefficients(count=28, nodes=80):
    mp.mp.dps = 50

    def f(u):
        t = (u + 1) / 2
        if t == 0:  # z -> inf: erfc(z) ~ exp(-z^2) / (z sqrt(pi))
            return -mp.log(2 * mp.sqrt(mp.pi))
        z = 2 / t - 2
        return mp.log(mp.erfc(z) / t) + z * z

    xs = [mp.cos(mp.pi * (j + mp.mpf(1) / 2) / nodes) for j in range(nodes)]
    fs = [f(x) for x in xs]
    c = [2 * mp.fsum(fs[j] * mp.cos(mp.pi * k * (j + mp.mpf(1) / 2) / nodes)
                     for j in range(nodes)) / nodes for k in range(count)]
    c[0] /= 2
    return [float(v) for v in c]


if __name__ == "__main__":
    for v in coefficients():
        print(repr(v) + ",")
