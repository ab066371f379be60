#!/usr/bin/env bash
# Sets up this clone: a virtual environment in .venv with kubectl-preempt installed (editable),
# and `kubectl-preempt` on PATH through ~/.local/bin, so that `kubectl preempt` works, with
# `kubectl_complete-preempt` beside it, through which kubectl (1.26+) completes `kubectl preempt`.
# Idempotent: run it again after pulling. --dev also installs the test tools and the builders.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: ./install.sh [--dev]

  --dev   also install the test tools (pytest, pytest-xdist, hypothesis), Ray (the extra
          [ray], which the tests of --ray run against a local Ray instance) and the builders of
          scripts/build.py (the extra [build]: build, wheel, PyInstaller, pipx)

Environment: PYTHON picks the interpreter (default: the newest python3.x >= 3.10 found);
BIN_DIR picks where the kubectl-preempt and kubectl_complete-preempt links go (default: ~/.local/bin).
USAGE
}

dev=0
for arg in "$@"; do
    case "$arg" in
        --dev) dev=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown argument: $arg" >&2; usage >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")"
root="$(pwd)"

python_ok() {
    "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' >/dev/null 2>&1
}

if [ -x .venv/bin/python ] && python_ok .venv/bin/python; then
    echo "Using the existing virtual environment in .venv"
else
    py="${PYTHON:-}"
    if [ -z "$py" ]; then
        for candidate in python3.13 python3.12 python3.11 python3.10 python3; do
            if command -v "$candidate" >/dev/null 2>&1 && python_ok "$candidate"; then
                py="$candidate"
                break
            fi
        done
    fi
    if [ -z "$py" ] || ! python_ok "$py"; then
        echo "install.sh: needs Python 3.10 or newer (set PYTHON=/path/to/python3)" >&2
        exit 1
    fi
    rm -rf .venv
    echo "Creating .venv with $("$py" --version 2>&1)"
    "$py" -m venv .venv
fi

target="."
[ "$dev" = 1 ] && target=".[dev,ray,build]"
if [ "$dev" = 1 ]; then
    echo "Installing kubectl-preempt, the test tools, Ray and the builders into .venv"
else
    echo "Installing kubectl-preempt into .venv"
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$target"

bin_dir="${BIN_DIR:-$HOME/.local/bin}"
mkdir -p "$bin_dir"
for name in kubectl-preempt kubectl_complete-preempt; do
    link="$bin_dir/$name"
    if [ -e "$link" ] && [ ! -L "$link" ]; then
        echo "install.sh: $link exists and is not a link; left as it is" >&2
    else
        ln -sfn "$root/.venv/bin/$name" "$link"
        echo "Linked $link -> $root/.venv/bin/$name"
    fi
done

case ":$PATH:" in
    *":$bin_dir:"*) echo "Ready: kubectl preempt --help" ;;
    *)
        echo "Ready. $bin_dir is not on your PATH; add it, e.g.:"
        echo "    echo 'export PATH=\"$bin_dir:\$PATH\"' >> ~/.bashrc && export PATH=\"$bin_dir:\$PATH\""
        echo "then: kubectl preempt --help"
        ;;
esac
