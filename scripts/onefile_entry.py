"""Entry point of the single-file executable (scripts/build.py).

One file serves both names kubectl looks for: `kubectl-preempt` runs the plugin, and a link to it
named `kubectl_complete-preempt` answers kubectl's completion requests (krew links only the
first; its caveats say how to add the second)."""
import os
import sys

# a shell's exit code for a process stopped by Ctrl-C (SIGINT): 128 + 2
INTERRUPTED = 130


def _run() -> int:
    try:
        from kubectl_preempt.cli.main import complete_plugin, main
    except KeyboardInterrupt:
        # Ctrl-C while the program is still loading: nothing was started, nothing to say
        return INTERRUPTED
    if os.path.basename(sys.argv[0]).startswith("kubectl_complete-"):
        return complete_plugin()
    return main()


if __name__ == "__main__":
    sys.exit(_run())
