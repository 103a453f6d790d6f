"""A headless Chromium driven over the DevTools protocol, to check what a
reader of the HTML report sees: images loaded with their size, tables with
rows, and nothing on the console.

Only the protocol's basic commands (``Page.navigate``, ``Runtime.evaluate``,
console and log events) over one WebSocket (``websocket-client``); the
browser is Debian's ``chromium`` (``make chromium`` installs it when we are
root), started with the flags this sandboxed machine needs and a fresh
profile.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--remote-debugging-port=0", "--remote-allow-origins=*",
    "--allow-file-access-from-files", "--window-size=1280,900",
]

_CHECK_PAGE = """(() => {
  const imgs = [...document.images].map(i => ({src: i.getAttribute('src'), complete: i.complete,
     naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight, width: i.width, height: i.height}));
  const tables = [...document.querySelectorAll('table')].map(t => ({rows: t.tBodies.length ?
     [...t.tBodies].reduce((n, b) => n + b.rows.length, 0) : t.rows.length,
     text: (t.tHead ? t.tHead.innerText : '').slice(0, 80)}));
  const links = [...document.querySelectorAll('a')].map(a => a.href);
  return JSON.stringify({title: document.title, imgs, tables, links,
     agree: document.querySelectorAll('tr.agree').length, differ: document.querySelectorAll('tr.differ').length});
})()"""


_OVERFLOWS = """(() => {
  const out = [];
  const w = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > w + 1) out.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${w} px`);
  document.querySelectorAll('table').forEach((t, i) => {
    const r = t.getBoundingClientRect();
    if (t.scrollWidth > t.clientWidth + 1) out.push(`table ${i} scrolls: ${t.scrollWidth} > ${t.clientWidth} px`);
    if (r.right > w + 1) out.push(`table ${i} ends at ${Math.round(r.right)} px, past the window (${w} px)`);
    t.querySelectorAll('td, th').forEach(c => {
      if (c.scrollWidth > c.clientWidth + 1) out.push(`table ${i}: cell cut off: ${c.innerText.slice(0, 40)}`);
      const cr = c.getBoundingClientRect();
      if (cr.right > w + 1) out.push(`table ${i}: cell past the window: ${c.innerText.slice(0, 40)}`);
    });
  });
  return JSON.stringify(out);
})()"""


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    """One headless Chromium with one page, closed on exit."""

    def __init__(self, exe: str) -> None:
        import websocket

        self._profile = tempfile.mkdtemp(prefix="dumbbell-chromium-")
        log = Path(self._profile) / "chromium.log"
        with open(log, "wb") as err:  # a file, not a pipe: chromium's chatter never blocks it
            self.proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={self._profile}/profile", "about:blank"],
                                         stdout=subprocess.DEVNULL, stderr=err)
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            for line in log.read_text(errors="replace").splitlines():
                if "DevTools listening on ws://" in line:
                    port = int(line.split("ws://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
                    break
            else:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"chromium exited before opening its DevTools port: {log.read_text()[-500:]}")
                time.sleep(0.05)
        if port is None:
            raise RuntimeError("chromium did not open its DevTools port")
        pages: list[dict[str, Any]] = []
        while time.monotonic() < deadline and not pages:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                pages = [t for t in json.load(r) if t.get("type") == "page"]
            if not pages:
                time.sleep(0.1)
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=60, suppress_origin=True)
        self._id = 0
        self.events: list[dict[str, Any]] = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._id += 1
        my = self._id
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def _wait_event(self, name: str, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        for i, e in enumerate(self.events):
            if e.get("method") == name:
                del self.events[: i + 1]
                return
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            if msg.get("method") == name:
                return
            self.events.append(msg)
        raise TimeoutError(name)

    def open(self, url: str) -> dict[str, Any]:
        """Loads ``url`` and returns what its reader sees, with the console
        errors and failed loads seen meanwhile."""
        self.events.clear()
        self.call("Page.navigate", url=url)
        self._wait_event("Page.loadEventFired")
        res = self.call("Runtime.evaluate", expression=_CHECK_PAGE, returnByValue=True)
        page = json.loads(res["result"]["value"])
        errors = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                errors.append(str(p.get("exceptionDetails", {}).get("text")))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                errors.append(f"{p['entry'].get('text')} {p['entry'].get('url', '')}")
        page["console_errors"] = errors
        return page

    def set_width(self, width: int, height: int = 900) -> None:
        """Lays pages out in a ``width`` × ``height`` CSS-pixel window (a
        screenshot then has that size)."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def overflows(self) -> list[str]:
        """What does not fit the window on the open page: tables wider than
        their box or than the window, cells whose text is cut off, and a
        page that scrolls sideways. Empty when everything fits."""
        res = self.call("Runtime.evaluate", expression=_OVERFLOWS, returnByValue=True)
        return json.loads(res["result"]["value"])

    def screenshot(self, path: Path) -> None:
        import base64

        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
