"""benchmarks.steady's pure parts: the summary of its rounds, the table, the children's
environment, --only (nothing here is timed)."""
import pytest

from benchmarks import _steady_table as table
from benchmarks._steady_workloads import LABELS, TABLE, resolve
from benchmarks.steady import THREAD_VARS, child_env

MIB = 2 ** 20


def result(median, traced=None, rss=100 * MIB):
    return {"median": median, "min": median * 0.9, "cpu_median": median / 2, "maxrss": rss,
            "traced": traced}


def rounds_w2():
    # graphgrad / torch: 0.5, 1.0, 0.75 -> median 0.75; graphgrad / numpy 2.0, 1.0, 1.0
    return [
        {"graphgrad": result(1.0, 12 * MIB), "torch": result(2.0), "numpy": result(0.5, 10 * MIB)},
        {"graphgrad": result(2.0, 12 * MIB), "torch": result(2.0), "numpy": result(2.0, 10 * MIB)},
        {"graphgrad": result(1.5, 12 * MIB), "torch": result(2.0), "numpy": result(1.5, 10 * MIB)},
    ]


def test_summarize_takes_medians_and_per_round_ratios():
    row = table.summarize("w2_mlp", rounds_w2())
    assert row["rounds"] == 3
    assert row["time"] == {"graphgrad": 1.5, "torch": 2.0, "numpy": 1.5}
    assert row["ratio"]["torch"] == [0.5, 1.0, 0.75]
    assert row["ratio"]["numpy"] == [2.0, 1.0, 1.0]
    assert row["cpu_ratio"]["torch"] == [0.5, 1.0, 0.75]
    assert row["traced"] == {"graphgrad": 12 * MIB, "numpy": 10 * MIB}  # no torch figure
    assert table.memory_ratio(row) == pytest.approx(1.2)


def test_blas_floor_is_blas_over_torch_and_not_a_graphgrad_ratio():
    rounds = [{**r, "blas": result(r["torch"]["median"] * f)}
              for r, f in zip(rounds_w2(), (0.9, 1.0, 0.8))]
    row = table.summarize("w2_mlp", rounds)
    assert row["floor"] == pytest.approx([0.9, 1.0, 0.8])
    assert "blas" not in row["ratio"] and "blas" not in row["cpu_ratio"]
    (line,) = table.floor_lines(row)
    assert "blas / PyTorch 0.90 [0.80-1.00]" in line
    assert table.floor_lines(table.summarize("w2_mlp", rounds_w2())) == []


def test_blas_floor_products_are_the_step_products():
    from benchmarks._blas_floor import PRODUCTS, blas_step, has_floor
    assert has_floor("w2_mlp") and not has_floor("w1_sin_chain")
    # W2: 3 products forward, 5 backward (no input gradient of the data)
    assert len(PRODUCTS["w2_mlp"][1]) == 8
    blas_step("w2_mlp")()


def test_spread_text():
    assert table.fmt_spread([1.0, 0.5, 0.75]) == "0.75 [0.50-1.00]"
    assert table.fmt_spread([61.27, 58.0, 64.12]) == "61.3 [58.0-64.1]"
    assert table.fmt_bytes(4.1 * MIB) == "4.1 MiB"
    assert table.fmt_bytes(787 * 1024) == "787 KiB"


def test_time_units():
    assert table.fmt_time(0.0123, "w2_mlp") == "12.3 ms"
    assert table.fmt_time(91.7e-6, "w7_rosenbrock") == "91.7 us"
    assert table.fmt_time(1.5, "digits_mlp_epoch") == "1500 ms"


def test_targets_say_whether_the_median_meets_them():
    row = table.summarize("w2_mlp", rounds_w2())
    # W2: <= 0.9x PyTorch (median 0.75: ok); peak <= 1.2x NumPy's (1.2: ok, the bound included)
    assert table.targets_cell(row) == "≤ 0.9 ok; peak ≤ 1.2x NumPy ok"
    slow = table.summarize("w1_sin_chain", [{"graphgrad": result(1.0), "torch": result(1.0)}])
    assert table.targets_cell(slow) == "≤ 0.65 MISS"
    assert table.targets_cell(table.summarize("w6_jacfwd", rounds_w2())) == ""


def test_w3_instruction_target():
    rounds = [{"graphgrad": result(1.0), "torch": result(1.0), "numpy": result(1.0)}]
    assert table.targets_cell(table.summarize("w3_rnn", rounds)).endswith(
        "instructions ≤ 1.05x NumPy")
    row = table.summarize("w3_rnn", rounds, instructions=(104.7e6, 100e6))
    assert table.targets_cell(row) == "≤ 0.9 MISS; instructions 1.047x NumPy ≤ 1.05 ok"


def test_table_has_one_row_per_workload_and_full_rows():
    ok = table.summarize("w2_mlp", rounds_w2())
    failed = {"name": "w9_cnn", "error": "graphgrad child failed: RuntimeError: x"}
    text = table.markdown_table([ok, failed])
    lines = text.splitlines()
    assert len(lines) == 4
    ncols = lines[0].count("|")
    assert all(line.count("|") == ncols for line in lines)
    assert lines[2].startswith(f"| {LABELS['w2_mlp']} | 1500 ms | 2000 ms | 1500 ms |")
    assert "0.75 [0.50-1.00]" in lines[2] and "1.00 [1.00-2.00]" in lines[2]
    assert "12.0 MiB / 10.0 MiB (1.20x)" in lines[2] and "| 100 / 100 / 100 |" in lines[2]
    assert "graphgrad child failed" in lines[3]


def test_rows_without_numpy_or_torch_memory():
    row = table.summarize("w8_transformer",
                          [{"graphgrad": result(1.0, 3 * MIB), "torch": result(0.5)}])
    assert table.peak_cell(row) == "3.0 MiB"
    assert table.rss_cell(row) == "100 / 100 / —"
    assert "| — |" in table.table_row(row)  # the NumPy time and ratio


def test_children_environment(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    one = child_env("1")
    assert all(one[v] == "1" for v in THREAD_VARS)
    default = child_env("default")
    assert not any(v in default for v in THREAD_VARS)


def test_only():
    assert resolve("") == list(TABLE)
    assert resolve("W3, w8_transformer,W3") == ["w3_rnn", "w8_transformer"]
    with pytest.raises(SystemExit, match="unknown workload 'W10'"):
        resolve("W10")
