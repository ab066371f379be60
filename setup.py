"""The wheel carries the repository's traces/ and examples/ as package data (kubectl_preempt/_bundled,
read by kubectl_preempt/io/bundled.py), so that the demo and the README's examples work in every
install. They stay at the repository's top level; this copies them into the built package. The
rest of the configuration is pyproject.toml's."""
from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _layout():
    """kubectl_preempt/io/bundled_layout.py alone: the one list of what is bundled, read without
    importing the package (its dependencies need not be installed to build it)."""
    spec = importlib.util.spec_from_file_location("_kubectl_preempt_bundled_layout",
                                                  HERE / "kubectl_preempt" / "io" / "bundled_layout.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and annotations look their module up
    spec.loader.exec_module(module)
    return module


LAYOUT = _layout()


class build_py_with_bundled_data(build_py):
    """build_py, then traces/ and examples/ into the built package as kubectl_preempt/_bundled/."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads them where they are (io/bundled.py)
        target = Path(self.build_lib) / "kubectl_preempt" / LAYOUT.PACKAGED
        if target.exists():
            shutil.rmtree(target)
        for relative in LAYOUT.bundled_files(HERE):
            dest = target / relative
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(HERE / relative, dest)
            os.chmod(dest, 0o644)


def project_urls() -> dict:
    """The package's links, to the GitHub repository the release is published from, as
    scripts/build.py fills it in (KUBECTL_PREEMPT_REPOSITORY=OWNER/NAME); none when no build says
    (a link to a guessed repository would lead nowhere)."""
    repo = os.environ.get("KUBECTL_PREEMPT_REPOSITORY", "").strip()
    if not repo:
        return {}
    home = f"https://github.com/{repo}"
    return {"Homepage": home, "Documentation": f"{home}#readme", "Source": home, "Issues": f"{home}/issues"}


setup(cmdclass={"build_py": build_py_with_bundled_data}, project_urls=project_urls())
