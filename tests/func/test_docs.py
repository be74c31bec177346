"""docs/func.md: its example runs."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_func_guide_example_runs():
    text = (ROOT / "docs" / "func.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, "docs/func.md", "exec"), {})
