"""Check the built documentation site: no broken internal links, and the home page and one
API page load in headless Chromium without console errors; screenshots of both.

    python tools/check_site.py site [--screenshots docs] [--chromium chromium]

The site is served from 127.0.0.1 (as a file:// page, Material's search script is refused)
by a server thread that stops when the check ends. Exits 1 on any problem, listing it.
"""
import argparse
import functools
import html.parser
import http.server
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

PAGES = {"home": "", "api": "api/nn/"}  # what Chromium loads, and its screenshot's name


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            if attrs.get(name):
                self.links.append(attrs[name])


def _parse(page):
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def broken_links(site):
    """'page: link' for every internal link to a missing file or a missing anchor."""
    site = Path(site).resolve()
    parsed = {page: _parse(page) for page in site.rglob("*.html")}
    broken = []
    for page, parser in parsed.items():
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "data:")):
                continue
            path, fragment = urldefrag(unquote(link))
            # absolute paths (the 404 page's) are relative to the site's root
            base = site if path.startswith("/") else page.parent
            target = (base / path.lstrip("/")).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {link}")
            elif fragment and target.suffix == ".html" and target in parsed \
                    and fragment not in parsed[target].ids:
                broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    return broken


def _serve(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def console_messages(chromium, url, screenshot):
    """The page's console messages, as Chromium logs them, after loading url headlessly."""
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
             "--window-size=1280,900", "--virtual-time-budget=3000",
             f"--screenshot={screenshot}", url],
            capture_output=True, text=True, timeout=120)
    if not Path(screenshot).exists():
        raise RuntimeError(f"chromium wrote no screenshot of {url}:\n{result.stderr[-2000:]}")
    return [line for line in result.stderr.splitlines() if re.search(r":CONSOLE[:(]", line)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--screenshots", type=Path, default=Path("docs"),
                        help="where site-home.png and site-api.png go (default docs/)")
    parser.add_argument("--chromium", default=shutil.which("chromium")
                        or shutil.which("chromium-browser"))
    args = parser.parse_args(argv)
    problems = [f"broken link in {link}" for link in broken_links(args.site)]
    if not args.chromium:
        problems.append("no chromium found (Debian: apt-get install chromium)")
    else:
        server = _serve(args.site)
        try:
            for name, path in PAGES.items():
                url = f"http://127.0.0.1:{server.server_port}/{path}"
                shot = args.screenshots / f"site-{name}.png"
                messages = console_messages(args.chromium, url, shot)
                problems += [f"console message on {url}: {line}" for line in messages]
                print(f"loaded {url}: {len(messages)} console messages, screenshot {shot}")
        finally:
            server.shutdown()
    for problem in problems:
        print(problem)
    print("site check:", "FAILED" if problems else "passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
