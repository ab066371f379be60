"""Entry point of the single-file executable (scripts/build.py).

One file serves both names kubectl looks for: `kubectl-preempt` runs the plugin, and a link to it
named `kubectl_complete-preempt` answers kubectl's completion requests (krew links only the
first; its caveats say how to add the second)."""
import os
import sys


def _run() -> int:
    from kubectl_preempt.cli.main import complete_plugin, main

    if os.path.basename(sys.argv[0]).startswith("kubectl_complete-"):
        return complete_plugin()
    return main()


if __name__ == "__main__":
    sys.exit(_run())
