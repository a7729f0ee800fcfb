"""XSS (issue 7): a corpus of payloads as player names, spectator names and chat lines,
rendered by the real client in Chromium. None may execute, none may become markup.

A canary (``window.__xss``) is installed before any script runs; every payload would
set it. Any dialog, any page error or CSP violation (conftest's watcher), an element
the payloads would create in the names or the chat, or text that is not shown
literally, fails the test. The CSP alone would stop inline handlers, so the DOM check
is what proves the client never renders text as HTML.
"""

from __future__ import annotations

import json
import urllib.request

import msgpack
from websockets.sync.client import connect

NAMES = [  # at most 30 characters each
    "<img src=x onerror=__xss=1>",
    "<script>__xss=1</script>",
    '"><svg onload=__xss=1>',
    "'-alert(1)-'",
    "javascript:__xss=1//",
    "<b onmouseover=__xss=1>B</b>",
]
CHAT = [
    '<img src=x onerror="window.__xss=1;alert(1)">',
    '<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
    '<a href="javascript:window.__xss=1" id=xss>click me</a>',
    "<svg><animate onbegin=window.__xss=1 attributeName=x dur=1s>",
    "<details open ontoggle=window.__xss=1>",
    "</textarea></style></script><script>window.__xss=1</script>",
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=1>",
    "${window.__xss=1}{{constructor.constructor('window.__xss=1')()}}",
    "&lt;img src=x onerror=window.__xss=1&gt; &#60;script&#62;",
    '<object data="javascript:window.__xss=1"></object><embed src=javascript:x>',
    "<style>@import 'javascript:window.__xss=1';</style><body onload=window.__xss=1>",
    "\u202e<img src=x onerror=window.__xss=1>\u200b",
]
# Elements only a payload could have made (the page's own never match).
INJECTED = (
    "[onerror], [onload], [ontoggle], [onbegin], [onmouseover], iframe, object, embed, "
    'script:not([src]), img[src="x"], a[href^="javascript"], #xss, mglyph, animate, '
    "details[open], b"
)
CANARY = "window.__xss = 0; window.__dialogs = 0;"


def post(server: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        server + path, data=json.dumps(body).encode(), method="POST",
        headers={"content-type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def say(server: str, game: str, token: str | None, name: str | None, text: str) -> None:
    """One socket, one chat line (each its own socket: no near-duplicate filter between)."""
    with connect(f"ws{server[4:]}/ws/games/{game}", subprotocols=["kondavo.v1"]) as ws:
        ws.send(msgpack.packb({"t": "hello", "proto": 1, "token": token, "name": name}))
        ws.send(msgpack.packb({"t": "chat", "text": text, "ack": 1}))
        while True:
            msg = msgpack.unpackb(ws.recv(timeout=10))
            if msg.get("ack") == 1:
                assert msg["t"] == "ack", msg
                return


def harmless(page) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.wait_for_timeout(300)  # onerror/onload handlers would have fired by now
    assert page.evaluate("window.__xss") == 0
    assert dialogs == []
    injected = page.evaluate(
        "sel => [...document.querySelectorAll(sel)].map(e => e.outerHTML)", INJECTED
    )
    assert injected == []


def test_names_and_chat_lines_are_text_never_markup(open_page, server):
    # Players with hostile names; the browser is the second player (from the invite).
    creator = post(server, "/api/games", {"color": "white", "clock": None, "name": NAMES[0]})
    game = creator["id"]
    page = open_page("/")
    page.context.add_init_script(CANARY)
    page.goto(creator["invite_url"])
    page.locator(".chat .lines").wait_for()
    for text in CHAT:
        say(server, game, creator["seat"]["token"], None, text)
    lines = page.locator(".chat .lines .line .text")
    lines.nth(len(CHAT) - 1).wait_for()
    shown = lines.all_text_contents()
    assert shown == [" ".join(t.replace("\u202e", "").replace("\u200b", "").split()) for t in CHAT]
    assert NAMES[0] in page.locator(".name").all_text_contents()
    harmless(page)

    # Spectators with hostile names talking among themselves, watched from a browser.
    watcher = open_page("/")
    watcher.context.add_init_script(CANARY)
    watcher.goto(f"/g/{game}")
    watcher.locator(".chat .lines").wait_for()
    for i, text in enumerate(CHAT[:6]):
        say(server, game, None, NAMES[(i + 1) % len(NAMES)], text)
    watcher.locator(".chat .lines .line .text").nth(5).wait_for()
    who = watcher.locator(".chat .lines .line .who").all_text_contents()
    assert who[:6] == [f"{NAMES[(i + 1) % len(NAMES)]}:" for i in range(6)]
    harmless(watcher)


def test_hostile_names_in_the_lobby_are_text(open_page, server):
    for name in NAMES:
        post(server, "/api/games", {"opponent": "open", "clock": None, "name": name})
    page = open_page("/")
    page.context.add_init_script(CANARY)
    page.goto("/")
    page.get_by_text(NAMES[-1], exact=False).first.wait_for()
    text = page.locator("body").inner_text()
    for name in NAMES:
        assert name in text
    harmless(page)
