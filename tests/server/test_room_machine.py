"""The room as a hypothesis state machine (issue 7): random commands from both seats,
spectators and the clock, checked after every step.

Invariants: versions rise by exactly one per event with no gaps; a move is applied
only when the side to move sent a move legal in that position; a takeback removes
only the asker's last move (and the reply after it), in an unrated game, and puts
both clocks back to what they were before those moves; a first move not made in time
aborts only a clocked game whose side to move has not moved yet; a spectator's
command changes nothing but the spectators' chat; a game ends once and stays ended.
The record is kept only when there were events, as ``Games.run`` commits it.
"""

from __future__ import annotations

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from protocol import messages as m
from server.core import commands as c
from server.core import replay, room, wire
from server.core.record import GameRecord

SIDES = st.sampled_from(["white", "black"])
ANYONE = st.sampled_from(["white", "black", None])
INVITE = "I" * 22
# What time and a spectator may change; everything else is the players' doing.
GAME_FIELDS = (
    "moves",
    "fen",
    "side_to_move",
    "status",
    "result",
    "reason",
    "draw_offer",
    "rematch_offer",
    "rematch_game",
    "remaining_ms",
    "turn_started",
    "position_version",
    "takeback_offer",
)


def _game_view(record: GameRecord) -> tuple:
    seats = {s: (v.token, v.sockets, v.gone_since) if v else None for s, v in record.seats.items()}
    return tuple(getattr(record, f) for f in GAME_FIELDS) + (seats,)


class RoomMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.record: GameRecord | None = None
        self.now = 0
        self.ended = 0
        self.applied_moves = 0
        self.taken_back = 0
        # Both clocks as each ply began, seen from outside the room: a takeback to ply p
        # must put back clocks_at[p].
        self.clocks_at: list[dict[str, int]] = []

    @initialize(
        variant=st.sampled_from(["english", "russian", "international", "turkish"]),
        clocked=st.booleans(),
        creator=SIDES,
        joined=st.sampled_from([True, True, True, False]),
        rated=st.sampled_from([False, False, True]),
        first_move_ms=st.sampled_from([0, 30_000]),
    )
    def create(
        self,
        variant: str,
        clocked: bool,
        creator: str,
        joined: bool,
        rated: bool,
        first_move_ms: int,
    ) -> None:
        self.record = room.new_game(
            game_id="g1",
            variant=variant,
            now=0,
            creator=creator,  # type: ignore[arg-type]
            creator_token="T" * 22,
            invite=INVITE,
            initial_ms=20_000 if clocked else None,
            increment_ms=500,
            claim_after_ms=5_000,
            first_move_ms=first_move_ms,
            rated=rated,
            creator_player="creator-public-id-01",
        )
        if joined:  # most runs start with both seats taken, so that play gets somewhere
            self.apply(c.Join(token="J" * 22, invite=INVITE, player="joiner-public-id-01"))

    # --- applying a command and checking what it did --------------------------------

    def apply(self, command: c.Command) -> room.Outcome:
        before = self.record
        assert before is not None
        outcome = room.handle(before, command, self.now)
        versions = [event.v for event in outcome.events]
        assert versions == list(range(before.version + 1, before.version + 1 + len(versions)))
        if outcome.events:
            assert outcome.record.version == versions[-1]
        by = getattr(command, "by", "nobody")
        moved = [e.message for e in outcome.events if isinstance(e.message, m.Moved)]
        if moved:
            sent = command.message if isinstance(command, c.Sent) else None
            assert isinstance(sent, m.MakeMove) and len(moved) == 1
            assert by is not None and by == before.side_to_move and before.status == "playing"
            game = replay.replay(before.variant, before.start_fen, before.moves)
            assert moved[0].path in [move["path"] for move in wire.legal(game)]
            assert outcome.record.moves == [*before.moves, moved[0].notation]
            del self.clocks_at[len(before.moves) :]
            self.clocks_at.append(dict(before.remaining_ms))
            self.applied_moves += 1
        taken = [e.message for e in outcome.events if isinstance(e.message, m.TakenBack)]
        if taken:
            (back,) = taken
            sent = command.message if isinstance(command, c.Sent) else None
            assert isinstance(sent, m.AskTakeback | m.AcceptTakeback) and not before.rated
            asker = by if isinstance(sent, m.AskTakeback) else before.takeback_offer
            assert back.by == asker and before.status == "playing"
            # The asker's last move, and the reply after it if there was one.
            assert back.plies == (1 if before.side_to_move != asker else 2)
            assert outcome.record.moves == before.moves[: len(before.moves) - back.plies]
            assert back.ply == len(outcome.record.moves)
            if before.clocked:
                assert outcome.record.remaining_ms == self.clocks_at[back.ply]
            self.taken_back += 1
            event("a takeback was applied")
        if not moved and not taken:
            kept = outcome.record if outcome.events else before
            assert kept.moves == before.moves
        overs = [e for e in outcome.events if isinstance(e.message, m.Over)]
        for over in overs:
            if over.message.reason == "no_first_move":
                assert before.clocked and before.first_move_ms and over.message.result is None
                assert before.moves_made_by(before.side_to_move) == 0
                assert self.now >= (before.turn_since or 0) + before.first_move_ms
                event("a first move was not made in time")
        self.ended += len(overs)
        assert self.ended <= 1, "a game ended twice"
        if before.over:
            assert not overs and outcome.record.status == before.status
            assert outcome.record.result == before.result
        if by is None and not isinstance(command, c.Join):
            # Time may pass (a flag, a claim opening); the spectator itself changes nothing.
            timed = room.handle(before, c.Tick(), self.now)
            assert _game_view(outcome.record) == _game_view(timed.record)
            extra = outcome.events[len(timed.events) :]
            assert all(
                isinstance(e.message, m.ChatLine) and e.message.by == "spectator" for e in extra
            )
            chat = isinstance(command, c.Sent) and isinstance(command.message, m.SendChat)
            assert outcome.refusal is not None or chat
        if outcome.events:
            self.record = outcome.record
        return outcome

    # --- seats ----------------------------------------------------------------------

    @rule(right=st.booleans())
    def join(self, right: bool) -> None:
        self.apply(c.Join(token="J" * 22, invite=INVITE if right else "wrong" + INVITE[5:]))

    @rule(side=SIDES)
    def connect(self, side: str) -> None:
        self.apply(c.Connect(side))  # type: ignore[arg-type]

    @rule(side=SIDES)
    def disconnect(self, side: str) -> None:
        self.apply(c.Disconnect(side))  # type: ignore[arg-type]

    # --- moves ----------------------------------------------------------------------

    def _legal(self) -> list[list[str]]:
        assert self.record is not None
        game = replay.replay(self.record.variant, self.record.start_fen, self.record.moves)
        return [move["path"] for move in wire.legal(game)]

    @rule(by=ANYONE, pick=st.integers(0, 200), stale=st.booleans())
    def move_a_legal_path(self, by, pick: int, stale: bool) -> None:
        legal = self._legal()
        if not legal:
            return
        assert self.record is not None
        v = self.record.position_version - 1 if stale and self.record.position_version else None
        self.apply(c.Sent(by, m.MakeMove(path=list(legal[pick % len(legal)]), v=v)))

    @rule(
        by=ANYONE,
        squares=st.lists(st.integers(0, 99), min_size=0, max_size=4),
        notation=st.one_of(st.none(), st.text(max_size=12)),
    )
    def move_anything(self, by, squares: list[int], notation) -> None:
        assert self.record is not None
        labels = [label for label, _, _ in wire.layout(self.record.variant)["squares"]]
        path = tuple(labels[i % len(labels)] for i in squares) if squares else None
        self.apply(c.Sent(by, m.MakeMove(path=list(path) if path else None, notation=notation)))

    # --- the rest of the game's course ------------------------------------------------

    @rule(
        by=ANYONE,
        what=st.sampled_from(
            [m.OfferDraw, m.AcceptDraw, m.DeclineDraw, m.Resign, m.Abort, m.DeclineRematch]
        ),
    )
    def simple_command(self, by, what) -> None:
        self.apply(c.Sent(by, what()))

    @rule(
        by=ANYONE,
        what=st.sampled_from(
            [m.AskTakeback, m.AskTakeback, m.AcceptTakeback, m.AcceptTakeback, m.DeclineTakeback]
        ),
    )
    def takeback(self, by, what) -> None:
        self.apply(c.Sent(by, what()))

    @precondition(lambda self: self.record is not None and self.record.status == "playing")
    @rule(asker=SIDES)
    def ask_for_a_takeback(self, asker: str) -> None:
        """A seated player asks: takebacks get granted, not only refused."""
        self.apply(c.Sent(asker, m.AskTakeback()))  # type: ignore[arg-type]

    @precondition(lambda self: self.record is not None and self.record.takeback_offer is not None)
    @rule(accept=st.sampled_from([True, True, False]))
    def answer_the_takeback(self, accept: bool) -> None:
        assert self.record is not None and self.record.takeback_offer is not None
        answerer = "black" if self.record.takeback_offer == "white" else "white"
        answer = m.AcceptTakeback() if accept else m.DeclineTakeback()
        self.apply(c.Sent(answerer, answer))  # type: ignore[arg-type]

    @rule(by=ANYONE, accept=st.booleans())
    def rematch(self, by, accept: bool) -> None:
        fresh = c.Fresh(game_id="g2", white_token="W" * 22, black_token="B" * 22)
        message = m.AcceptRematch() if accept else m.OfferRematch()
        self.apply(c.Sent(by, message, fresh=lambda: fresh))

    @rule(by=ANYONE, draw=st.booleans())
    def claim(self, by, draw: bool) -> None:
        self.apply(c.Sent(by, m.ClaimDraw() if draw else m.ClaimVictory()))

    @rule(by=ANYONE, text=st.text(max_size=150))
    def chat(self, by, text: str) -> None:
        self.apply(c.Sent(by, m.SendChat(text=text), "watcher"))

    @rule(ms=st.sampled_from([1, 100, 1_000, 5_000, 16_000, 25_000]))
    def time_passes(self, ms: int) -> None:
        self.now += ms
        self.apply(c.Tick())

    @precondition(lambda self: self.record is not None and self.record.status == "playing")
    @rule(data=st.data())
    def play_on(self, data) -> None:
        """The side to move plays: games get somewhere, not only refusals."""
        assert self.record is not None
        legal = self._legal()
        if legal:
            path = data.draw(st.sampled_from(legal))
            self.apply(c.Sent(self.record.side_to_move, m.MakeMove(path=list(path))))

    # --- always -----------------------------------------------------------------------

    @invariant()
    def the_record_is_consistent(self) -> None:
        if self.record is None:
            return
        game = replay.replay(self.record.variant, self.record.start_fen, self.record.moves)
        assert self.record.fen == game.position.fen()
        if self.record.status in ("finished", "aborted"):
            assert self.ended == 1
        else:
            assert self.ended == 0


RoomMachine.TestCase.settings = settings(
    max_examples=100, stateful_step_count=50, deadline=None, database=None
)
test_the_room_under_random_commands = RoomMachine.TestCase
