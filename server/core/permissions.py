"""What each seat may send now: the room's commands a client offers as buttons.

The client shows what this says and re-derives no rule (the abort window, an offer's
lapse, who may claim or rematch). It reads the record the way ``room.handle`` judges
each command, with one exception: ``takeback_ask`` stays listed through the pause
after a declined request (the list knows no time; the refusal says how long is left).
``tests/server/test_permissions.py`` plays random games and checks that a command is
listed exactly when the room would accept it. Moves are not listed (``legal`` lists
them) and neither is chat (always allowed).
"""

from __future__ import annotations

from protocol import messages as m
from server.core.record import SIDES, GameRecord, Side, other

# The protocol's commands (``protocol.messages.Command``, the list the room's handler
# table follows) but moves, listed by ``legal``, and chat, always allowed.
COMMANDS = tuple(
    tag
    for tag, message in m.CLIENT_MESSAGES.items()
    if issubclass(message, m.Command) and message not in (m.MakeMove, m.SendChat)
)


def may(record: GameRecord) -> dict[str, list[str]]:
    """Per seated side, the commands of ``COMMANDS`` the room would accept from it now."""
    return {side: _for(record, side) for side in SIDES if record.seat(side) is not None}


def _for(rec: GameRecord, side: Side) -> list[str]:
    out: list[str] = []
    opponent = other(side)
    playing = rec.status == "playing"
    if not rec.over and not rec.started:
        out.append("abort")
    if playing:
        declined_here = rec.draw_declined_at.get(side) == len(rec.moves)
        if rec.draw_offer == opponent or (rec.draw_offer is None and not declined_here):
            out.append("draw_offer")
        if rec.draw_offer == opponent:
            out += ["draw_accept", "draw_decline"]
        if not rec.rated and rec.takeback_offer is None and rec.moves_made_by(side) > 0:
            out.append("takeback_ask")
        if rec.takeback_offer == opponent:
            out += ["takeback_accept", "takeback_decline"]
        out.append("resign")
        gone = rec.seat(opponent)
        # Announced by ``claimable`` once the opponent has been gone long enough.
        if (
            rec.clocked
            and rec.started
            and gone is not None
            and not gone.bot
            and gone.sockets == 0
            and gone.claim_announced
        ):
            out += ["claim_victory", "claim_draw"]
    if (
        rec.over
        and rec.seat("white") is not None
        and rec.seat("black") is not None
        and rec.rematch_game is None
    ):
        if rec.rematch_offer != side:
            out.append("rematch_offer")
        if rec.rematch_offer == opponent:
            out += ["rematch_accept", "rematch_decline"]
    return out
