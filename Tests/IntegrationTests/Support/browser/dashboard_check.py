"""Drives headless Chromium over the DevTools protocol against an ActionBus dashboard.

    python dashboard_check.py CHROMIUM URL WORKER SCREENSHOT -- PERFORM-COMMAND...

Opens URL, waits until the workers table names WORKER, runs PERFORM-COMMAND (an `actionbus
perform` whose request id the tail must then show), waits until the live tail shows that
outcome, writes a screenshot to SCREENSHOT and prints what it saw. Exits 1 on a timeout.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket  # websocket-client


def wait(what, condition, timeout=30.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise TimeoutError(f"timed out waiting for {what}")


class Page:
    def __init__(self, ws_url):
        self.socket = websocket.create_connection(ws_url, timeout=30)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def text(self, selector):
        result = self.call("Runtime.evaluate", expression=f"(document.querySelector({json.dumps(selector)}) || {{}}).innerText || ''",
                           returnByValue=True)
        return result.get("result", {}).get("value", "")


def main():
    chromium, url, worker, screenshot = sys.argv[1:5]
    perform = sys.argv[sys.argv.index("--") + 1:]
    profile = tempfile.mkdtemp(prefix="actionbus-chromium-")
    browser = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                "--remote-debugging-port=0", f"--user-data-dir={profile}", "--window-size=1400,1000",
                                "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        port = wait("Chromium's DevTools port", lambda: os.path.exists(port_file) and open(port_file).read().split("\n")[0])
        targets = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
        page = Page(next(t for t in targets if t.get("type") == "page")["webSocketDebuggerUrl"])
        page.call("Page.enable")
        page.call("Page.navigate", url=url)
        workers = wait(f"worker {worker} in the workers table", lambda: worker in page.text("#workers") and page.text("#workers"))
        wait("the live tail to connect", lambda: page.text("#live-state") == "live")
        result = subprocess.run(perform, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"perform failed: {result.stdout} {result.stderr}")
        request = json.loads(result.stdout.splitlines()[0])["request"]
        tail = wait(f"request {request} in the live tail", lambda: request in page.text("#tail") and page.text("#tail"))
        stacks = wait("its session's stack on the page", lambda: "dash-1" in page.text("#stacks") and page.text("#stacks"))
        shot = page.call("Page.captureScreenshot", format="png")
        with open(screenshot, "wb") as file:
            file.write(base64.b64decode(shot["data"]))
        print(json.dumps({"workers": workers, "tail": tail, "stacks": stacks, "request": request, "counters": page.text("#counters")}))
    except Exception as error:  # the test prints it
        print(f"dashboard check failed: {error}", file=sys.stderr)
        sys.exit(1)
    finally:
        browser.kill()
        browser.wait()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
