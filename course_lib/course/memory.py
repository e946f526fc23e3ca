"""Each chapter's peak memory: `make memory` (writes the README's table with --readme).

    python -m course_lib.course.memory notebooks/[0-9]*.ipynb [--readme]

Runs each notebook top to bottom on a fresh kernel of the course (as run_notebooks does), then asks
the kernel for its own peak resident memory (getrusage's ru_maxrss: the largest it ever was, not a
sample) and that of the processes it started and waited for. A hub that gives a user 1 GB needs
every chapter below that. Linux and macOS (Windows has no getrusage).
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

PROBE = """import json, os, resource, sys
_scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
def _own_peak():  # Linux: VmHWM, this process's own peak (ru_maxrss keeps the parent's peak across exec)
    if os.path.exists("/proc/self/status"):
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * _scale
print("PEAK_RSS", json.dumps([_own_peak(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * _scale]))"""
LIMIT_MB = 1000  # what many hubs give a user


def peak_memory(path: Path, timeout: int = 900) -> tuple[float, float]:
    """(peak MB of the kernel, of its waited-for child processes) while running the notebook."""
    import nbformat
    from nbclient import NotebookClient

    from course_lib.course.run_notebooks import course_kernel

    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    client = NotebookClient(nb, timeout=timeout, startup_timeout=300, kernel_name=course_kernel(),
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    line = next(l for l in text.splitlines() if l.startswith("PEAK_RSS"))
    own, children = json.loads(line.split(" ", 1)[1])
    return own / 1e6, children / 1e6


def readme_table(peaks: dict[str, tuple[float, float] | None]) -> str:
    """The README's table; a chapter whose value is None is listed as not measured."""
    rows = [f"| {name} | not measured yet | |" if v is None else
            f"| {name} | {v[0]:.0f} | {'**over 1 GB**' if v[0] > LIMIT_MB else 'yes'} |" for name, v in peaks.items()]
    return "\n".join([f"Peak memory of each chapter's kernel (`make memory`, {datetime.date.today().isoformat()}, "
                      "Linux, CPU; getrusage's ru_maxrss of the kernel after running the chapter top to bottom):",
                      "", "| notebook | peak MB | within 1 GB |", "|---|---:|---|", *rows])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--readme", action="store_true", help="write the table into README.md (MEMORY block)")
    args = parser.parse_args(argv)
    peaks = {}
    for path in args.notebooks:
        peaks[path.name] = peak_memory(path)
        print(f"{path.name:45s} {peaks[path.name][0]:7.0f} MB", flush=True)
    if args.readme:
        from course_lib.course.run_notebooks import replace_block

        replace_block(Path("README.md"), "MEMORY", readme_table(peaks))
        print("written to README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
