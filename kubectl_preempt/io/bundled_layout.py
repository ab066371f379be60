"""What the installs bundle of the repository: traces/ and examples/, without the script that
generates the traces. Standard library only, so that setup.py and scripts/build.py read the same
list as io/bundled.py without importing the package (whose dependencies a build need not have)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

# the package's folder of them, in a built install: kubectl_preempt/_bundled/{traces,examples}
PACKAGED = "_bundled"
# the folders bundled, as the repository names them
FOLDERS = ("traces", "examples")
# what stays out: the script that writes the traces, and Python's caches
LEFT_OUT = ("generate.py",)


def bundled_files(base: Path) -> Iterator[str]:
    """The path (traces/..., examples/...) of every bundled file under `base` (the repository, or
    an install's _bundled folder), in sorted order."""
    for folder in FOLDERS:
        for dirpath, dirnames, names in os.walk(base / folder):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(names):
                if name in LEFT_OUT or name.endswith((".pyc", ".pyo")):
                    continue
                yield (Path(dirpath) / name).relative_to(base).as_posix()
