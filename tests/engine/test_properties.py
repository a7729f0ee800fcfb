"""Properties over random legal games in every rule set (hypothesis)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import VARIANTS, Color, Position, get_rules
from engine.game import Game

GAMES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def random_games(draw, max_plies=120):
    variant = draw(st.sampled_from(list(VARIANTS)))
    game = Game(get_rules(variant))
    plies = draw(st.integers(min_value=0, max_value=max_plies))
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(moves[draw(st.integers(min_value=0, max_value=len(moves) - 1))])
    return game


@GAMES
@given(random_games())
def test_fen_round_trips(game):
    pos = game.position
    assert Position.from_fen(game.rules, pos.fen()) == pos
    assert Position.from_fen(game.rules, pos.fen()).fen() == pos.fen()


@GAMES
@given(random_games())
def test_fen_lists_each_colour_in_the_rule_sets_order(game):
    rules, pos = game.rules, game.position
    _, white, black = pos.fen().split(":")
    for listed, bits in ((white[1:], pos.white), (black[1:], pos.black)):
        in_order = [sq for sq in rules.listing_order if bits >> sq & 1]
        names = [("K" if pos.kings >> sq & 1 else "") + rules.square_names[sq] for sq in in_order]
        assert listed == ",".join(names)


@GAMES
@given(random_games())
def test_pdn_round_trips(game):
    again = Game.from_pdn(game.pdn({"White": 'A "quoted" name', "Black": "B"}))
    assert again.rules == game.rules
    assert again.notation == game.notation
    assert again.fen() == game.fen()
    assert again.result == game.result


@GAMES
@given(random_games())
def test_notation_round_trips(game):
    pos = game.position
    for move in pos.legal_moves():
        assert pos.parse_move(str(move)) == move


@GAMES
@given(random_games(max_plies=60), st.data())
def test_every_move_obeys_the_invariants(game, data):
    rules = game.rules
    board_mask = rules.board.mask
    for _ in range(40):
        pos = game.position
        moves = game.legal_moves()
        if not moves:
            break
        # If any capture exists, every legal move captures.
        if any(m.captured for m in moves):
            assert all(m.captured for m in moves)
        move = moves[data.draw(st.integers(0, len(moves) - 1))]
        # Captured squares always hold enemy pieces, each once.
        for sq in move.captured:
            piece = pos.piece_at(sq)
            assert piece is not None and piece[0] is pos.side_to_move.opponent
        assert len(set(move.captured)) == len(move.captured)
        before = pos.material()
        game.play(move)
        after = game.position
        # Piece counts never grow; nothing stands on a non-playing square; no overlap.
        assert (after.white | after.black) & ~board_mask == 0
        assert after.white & after.black == 0
        assert after.kings & ~(after.white | after.black) == 0
        mover = 0 if pos.side_to_move is Color.WHITE else 2
        other = 2 - mover
        now = after.material()
        assert now[mover] + now[mover + 1] == before[mover] + before[mover + 1]
        lost = before[other] + before[other + 1] - now[other] - now[other + 1]
        assert lost == len(move.captured)
