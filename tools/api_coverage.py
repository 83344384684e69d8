"""How much of the public API the built API reference names.

    python tools/api_coverage.py site [--min 90]

Counts the public functions of tapegrad, the Tensor methods, the nn.functional functions and
the nn classes, and how many of them have an anchor (`id="tapegrad.nn.Linear"`) in the built
site/api pages, and how many have a docstring of their own; exits 1 below --min percent.
"""
import argparse
import inspect
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from api_reference import public_names, resolve, summary  # noqa: E402

GROUPS = {
    "tapegrad functions": ("tapegrad", callable),
    "Tensor methods": ("tapegrad.Tensor", lambda value: callable(value)),
    "nn.functional functions": ("tapegrad.nn.functional", callable),
    "nn classes": ("tapegrad.nn", inspect.isclass),
}


def group_names(path, keep):
    names = public_names(path)
    if path == "tapegrad.Tensor":
        names = {name: inspect.getattr_static(resolve(path), name) for name in names}
    return {name: value for name, value in names.items()
            if keep(value) and not (path != "tapegrad.nn" and inspect.isclass(value))}


def anchors(site):
    found = set()
    for page in (Path(site) / "api").rglob("*.html"):
        found.update(re.findall(r'id="(tapegrad[\w.]*)"', page.read_text(encoding="utf-8")))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", help="the built site directory (mkdocs build -d SITE)")
    parser.add_argument("--min", type=float, default=90.0, help="required percent named")
    args = parser.parse_args(argv)
    found = anchors(args.site)
    total_named = total = 0
    for title, (path, keep) in GROUPS.items():
        names = group_names(path, keep)
        named = [name for name in names if f"{path}.{name}" in found]
        documented = [name for name, value in names.items() if summary(value)]
        total_named, total = total_named + len(named), total + len(names)
        print(f"{title}: {len(named)}/{len(names)} named in the reference "
              f"({100 * len(named) / len(names):.1f}%), {len(documented)} with a summary")
    percent = 100 * total_named / total
    print(f"all: {total_named}/{total} named ({percent:.1f}%)")
    return 0 if percent >= args.min else 1


if __name__ == "__main__":
    sys.exit(main())
