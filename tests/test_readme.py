"""README.md stays true: its example prints what its comments say, it gives exactly two
set-up commands, and .ci/run runs the same test command."""
import contextlib
import io
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_example_prints_what_its_comments_say():
    code = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    expected = [m.group(1) for line in code.splitlines()
                if line.startswith("print(") and (m := re.search(r"#\s*(.+)$", line))]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue().splitlines() == expected


def test_two_setup_commands_and_ci_runs_the_test_command():
    setup = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in setup.splitlines() if line.startswith("    ")]
    assert len(commands) == 2, commands
    assert commands[0].endswith("python -m graphgrad.demo"), commands
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci.replace("pip install -q ", "pip install ") == commands[1], (ci, commands[1])
