"""The install story: a wheel built from this checkout works outside it.

The wheel is built in a temporary folder and installed into a fresh virtual
environment (its dependencies come from the package registry, as a user's
would), without the viewer extra. Then, from a folder outside the
repository: the README's library example, ``navkit --help``, ``navkit path``
on the bundled map, and ``navkit bench-level --quick``; and the viewer says
which extra it needs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

def readme_example() -> str:
    """The README's library example (its first ``python`` block under "Using the
    library"), as the README shows it, followed by checks of what it computed."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Using the library"):]
    start = section.index("```python\n") + len("```python\n")
    block = section[start:section.index("```", start)]
    return block + CHECKS


#: Run after the README's block, in the same namespace.
CHECKS = """
assert r.status.name == "FOUND" and abs(r.cost - 347.978) < 1e-3, r
assert w.has_path and n.has_path and b.cost[0] == r.cost and np.isfinite(d[36, 77])
assert c == r.cost_int and k == len(r.cells) and buf.cost == r.cost, (c, k, buf)
assert (buf.cells == r.cells).all() and (buf.waypoints == r.waypoints).all()
assert "site-packages" in navkit.__file__, navkit.__file__
print("README example OK", navkit.__version__)
"""


def test_the_readme_block_is_found() -> None:
    code = readme_example()
    assert "navkit.examples.path(" in code and "find_path_cells" in code
    compile(code, "README.md", "exec")


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> str:
    r = subprocess.run(cmd, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(cmd)} exited {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """A fresh venv with the wheel installed: ``(python, navkit script, env)``."""
    base = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(base / "dist"),
          str(ROOT)], base, env)
    wheels = list((base / "dist").glob("navkit-*.whl"))
    assert len(wheels) == 1, wheels
    venv.EnvBuilder(with_pip=True).create(base / "venv")
    py = base / "venv" / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "-q", str(wheels[0])], base, env, timeout=1800)
    outside = base / "elsewhere"
    outside.mkdir()
    return py, base / "venv" / "bin" / "navkit", env


def test_the_readme_example_runs_from_the_wheel(installed: tuple[Path, Path, dict[str, str]],
                                                tmp_path: Path) -> None:
    py, _navkit, env = installed
    out = _run([str(py), "-c", readme_example()], tmp_path, env)
    assert "README example OK" in out


def test_the_command_line_runs_from_the_wheel(installed: tuple[Path, Path, dict[str, str]],
                                              tmp_path: Path) -> None:
    py, navkit_exe, env = installed
    assert "path" in _run([str(navkit_exe), "--help"], tmp_path, env)
    den = _run([str(py), "-c", "import navkit; print(navkit.examples.path('den520d.map'))"],
               tmp_path, env).strip()
    out = _run([str(navkit_exe), "path", den, "--from", "12,208", "--to", "77,36", "--cells",
                "--json"], tmp_path, env)
    assert '"status": "FOUND"' in out
    out = _run([str(navkit_exe), "bench-level", "--quick"], tmp_path, env)
    assert "navmap" in out.lower() or "queries" in out.lower()


def test_the_viewer_names_its_extra(installed: tuple[Path, Path, dict[str, str]],
                                    tmp_path: Path) -> None:
    py, navkit_exe, env = installed
    r = subprocess.run([str(py), "-c", "import navkit.viewer.server"], cwd=str(tmp_path), env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "pip install 'navkit[viewer]'" in r.stderr, r.stderr
    r = subprocess.run([str(navkit_exe), "view", "x.map"], cwd=str(tmp_path), env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "navkit[viewer]" in r.stderr, (r.stdout, r.stderr)
