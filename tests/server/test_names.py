"""Display names are cleaned by one function, the same way over HTTP and in ``hello``."""

from __future__ import annotations

import pytest

from protocol.client import HttpError, Kondavo
from server.core.names import InvalidName, clean_name

# (what a hostile or careless client sends, what everyone else is shown)
HOSTILE = [
    ("Ada\u202eecalvoL", "AdaecalvoL"),  # right-to-left override
    ("\u2067Bo\u2069b", "Bob"),  # right-to-left isolate and its end
    ("Ca\u200bro\u200dl\ufeff", "Carol"),  # zero-width space, joiner, byte-order mark
    ("Eve\nMallory\r\n", "Eve Mallory"),  # newlines
    ("Nu\x00ll\x07", "Null"),  # NUL and a bell
    ("  Dan  \t  Brown  ", "Dan Brown"),  # spaces trimmed and collapsed
    ("Zoe\u0301", "Zoé"),  # composed (NFC), so it counts as one character
]
INVISIBLE = [
    "",
    "   ",
    "\u200b\u200c\u200d",
    "\u202e\u2066\u2069",
    "\u3164\u2800",
    "\n\x00\t",
    "\u0301",
]


@pytest.mark.parametrize(("sent", "shown"), HOSTILE)
def test_hostile_names_are_cleaned_to_what_can_be_shown(sent: str, shown: str):
    assert clean_name(sent) == shown


@pytest.mark.parametrize("sent", INVISIBLE)
def test_an_empty_or_all_invisible_name_is_refused_with_its_own_code(sent: str):
    with pytest.raises(InvalidName) as info:
        clean_name(sent)
    assert info.value.code == "name/empty" and "visible" in info.value.sentence


def test_a_name_is_at_most_thirty_characters_once_cleaned():
    assert clean_name("\u200b" * 40 + "x" * 30) == "x" * 30
    with pytest.raises(InvalidName) as info:
        clean_name("x" * 31)
    assert info.value.code == "name/too_long" and "30" in info.value.sentence


@pytest.mark.parametrize(("sent", "shown"), HOSTILE)
async def test_a_name_sent_over_http_is_cleaned_on_creating_and_joining(
    k: Kondavo, sent: str, shown: str
):
    creator = await k.create(name=sent)
    await k.join(creator.game, invite=creator.invite, name=sent)
    players = (await k.game(creator.game))["players"]
    assert players["white"]["name"] == shown and players["black"]["name"] == shown


@pytest.mark.parametrize("sent", INVISIBLE)
async def test_an_invisible_name_over_http_is_refused_and_no_game_is_made(k: Kondavo, sent: str):
    before = await k.lobby()
    with pytest.raises(HttpError) as info:
        await k.create(name=sent, opponent="open")
    assert info.value.status == 400 and info.value.code == "name/empty"
    assert await k.lobby() == before


@pytest.mark.parametrize(("sent", "shown"), HOSTILE)
async def test_a_name_said_in_hello_is_cleaned_before_anyone_sees_it(
    k: Kondavo, sent: str, shown: str
):
    creator = await k.create(opponent="friend")
    async with k.connect(creator.game, name=sent) as spectator, k.connect(creator.game) as other:
        await spectator.chat("hello")
        line = await other.next("chat")
        assert line.name == shown  # type: ignore[attr-defined]
        assert spectator.errors == []


@pytest.mark.parametrize("sent", INVISIBLE[1:])
async def test_an_invisible_name_in_hello_is_refused_and_the_socket_stays(k: Kondavo, sent: str):
    creator = await k.create(opponent="friend")
    async with k.connect(creator.game, name=sent) as spectator:
        await spectator.until(lambda c: bool(c.errors))
        assert spectator.errors[0].code == "name/empty"
        assert spectator.close_code is None
        pong = await spectator.ping()
        assert pong.now > 0
