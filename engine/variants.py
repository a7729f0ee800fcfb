"""The seven rule sets, as data. This is the only module that names variants.

Each field cites the rule it encodes; RULES.md in the project's shared docs is
the source, the federation rules where it is silent.
"""

from __future__ import annotations

from .errors import UnknownVariantError
from .geometry import Board, Numbering
from .rules import Color, CrowningInCapture, DrawRule, Rules

FORWARD = frozenset({"forward"})
FORWARD_BACKWARD = frozenset({"forward", "backward"})
FORWARD_SIDEWAYS = frozenset({"forward", "sideways"})

# 50 moves by each side without a capture or a man move.
FIFTY_MOVES = (DrawRule("no_progress", 100, "no_progress_50"),)

# FMJD 6.1-6.4 (threefold repetition is common to all and lives in Game).
FMJD = (
    DrawRule("no_progress", 50, "fmjd_25"),  # 25 moves each, only kings, no capture
    DrawRule("three_vs_lone_king", 32, "fmjd_16"),  # 16 more moves each
    DrawRule("two_vs_lone_king", 10, "fmjd_5"),  # 5 more moves each
)

# FMJD-64 7.2.3-7.2.8, as lidraughts implements them.
FMJD64 = (
    DrawRule("many_kings_vs_lone_king", 30, "fmjd64_three_kings_15"),
    DrawRule("no_progress", 30, "fmjd64_kings_only_15"),
    DrawRule("kings_both_sides_4_5", 60, "fmjd64_endgame_30"),
    DrawRule("kings_both_sides_6_7", 120, "fmjd64_endgame_60"),
    DrawRule("three_vs_lone_king_on_long_diagonal", 10, "fmjd64_long_diagonal_5"),
    DrawRule("few_vs_lone_king", 10, "fmjd64_lone_king_5"),
)

BOARD_8 = Board(8, 8)
BOARD_10 = Board(10, 10)
# Spanish: numbered from White's side, right to left, bottom to top (1 = h1).
BOARD_8_SPANISH = Board(
    8, 8, mirrored=True, numbering=Numbering(from_top=False, left_to_right=False)
)
# Italian: FID numbering left to right from the top-left playing square (1 = a8).
BOARD_8_ITALIAN = Board(8, 8, mirrored=True)
BOARD_8_ORTHOGONAL = Board(8, 8, all_squares=True)

ENGLISH = Rules(
    id="english",
    name_en="English draughts",
    name_de="Klassisch (Dame)",
    board=BOARD_8,
    first_to_move=Color.BLACK,  # Black (dark) moves first
    start_rows=(0, 1, 2),
    men_steps=FORWARD,
    men_capture=FORWARD,
    flying_kings=False,  # kings step and jump one square
    capture_precedence=(),  # any capture sequence, short or long
    men_capture_kings=True,
    captured_removed_at_once=False,
    crowning_in_capture=CrowningInCapture.ENDS_MOVE,
    no_turning_back=False,
    draw_rules=FIFTY_MOVES,
    notation="numeric",
    capture_separator="x",
    fen_accepts_numbers=False,
    gametype="21,B,8,8,N1,0",
    # Checkers PDN (CheckerBoard, the OCA archive; PDN 3.0's "Default" result type):
    # "1-0" is a win for the first player, Black; the README's PDN section has the sources.
    pdn_win_points=1,
)

INTERNATIONAL = Rules(
    id="international",
    name_en="International draughts",
    name_de="Polnisch (International)",
    board=BOARD_10,
    first_to_move=Color.WHITE,
    start_rows=(0, 1, 2, 3),
    men_steps=FORWARD,
    men_capture=FORWARD_BACKWARD,  # FMJD 4.2: men capture backward too
    flying_kings=True,  # FMJD 3.9, 4.3
    capture_precedence=("pieces",),  # FMJD 4.13: the most pieces, kings and men alike
    men_capture_kings=True,
    captured_removed_at_once=False,  # FMJD 4.11: removed after the move
    crowning_in_capture=CrowningInCapture.PASSES,  # FMJD 5.3
    no_turning_back=False,
    draw_rules=FMJD,
    notation="numeric",
    capture_separator="x",
    fen_accepts_numbers=False,
    gametype="20,W,10,10,N2,0",
    pdn_win_points=2,  # PDN 3.0 "International" result type: 2-0, 1-1, 0-2
)

BRAZILIAN = Rules(
    id="brazilian",
    name_en="Brazilian draughts",
    name_de="Brasilianisch",
    board=BOARD_8,
    first_to_move=Color.WHITE,
    start_rows=(0, 1, 2),
    men_steps=FORWARD,
    men_capture=FORWARD_BACKWARD,
    flying_kings=True,
    capture_precedence=("pieces",),  # International rules on 8x8
    men_capture_kings=True,
    captured_removed_at_once=False,
    crowning_in_capture=CrowningInCapture.PASSES,
    no_turning_back=False,
    draw_rules=FMJD64,
    notation="algebraic",
    capture_separator="x",
    fen_accepts_numbers=True,
    gametype="26,W,8,8,A0,0",
    pdn_win_points=2,  # 2-0, 1-1, 0-2 as lidraughts writes them (PDN 3.0 lists "Default")
)

RUSSIAN = Rules(
    id="russian",
    name_en="Russian draughts",
    name_de="Russisch (Schaschki)",
    board=BOARD_8,
    first_to_move=Color.WHITE,
    start_rows=(0, 1, 2),
    men_steps=FORWARD,
    men_capture=FORWARD_BACKWARD,
    flying_kings=True,
    capture_precedence=(),  # free choice, but every sequence is completed
    men_capture_kings=True,
    captured_removed_at_once=False,
    crowning_in_capture=CrowningInCapture.CONTINUES_AS_KING,
    no_turning_back=False,
    draw_rules=FMJD64,
    notation="algebraic",
    capture_separator=":",
    fen_accepts_numbers=True,
    gametype="25,W,8,8,A0,0",
    pdn_win_points=2,  # 2-0, 1-1, 0-2 as lidraughts writes them (PDN 3.0 lists "Default")
)

SPANISH = Rules(
    id="spanish",
    name_en="Spanish draughts",
    name_de="Spanisch",
    board=BOARD_8_SPANISH,
    first_to_move=Color.WHITE,
    start_rows=(0, 1, 2),
    men_steps=FORWARD,
    men_capture=FORWARD,
    flying_kings=True,
    capture_precedence=("pieces", "kings"),  # quality law: then the most kings
    men_capture_kings=True,
    captured_removed_at_once=False,
    crowning_in_capture=CrowningInCapture.ENDS_MOVE,
    no_turning_back=False,
    draw_rules=FIFTY_MOVES,
    notation="numeric",
    capture_separator="x",
    fen_accepts_numbers=False,
    gametype="24,W,8,8,N1,1",
    pdn_win_points=1,  # PDN 3.0 GameType table: the "Default" result type (1-0, 1/2-1/2)
)

ITALIAN = Rules(
    id="italian",
    name_en="Italian draughts",
    name_de="Italienisch",
    board=BOARD_8_ITALIAN,
    first_to_move=Color.WHITE,
    start_rows=(0, 1, 2),
    men_steps=FORWARD,
    men_capture=FORWARD,
    flying_kings=False,
    # FID: most pieces; with a king rather than a man; most kings; a king met earliest.
    capture_precedence=("pieces", "with_king", "kings", "earliest_king"),
    men_capture_kings=False,  # a man may never capture a king
    captured_removed_at_once=False,
    crowning_in_capture=CrowningInCapture.ENDS_MOVE,
    no_turning_back=False,
    draw_rules=FIFTY_MOVES,
    notation="numeric",
    capture_separator="x",
    fen_accepts_numbers=False,
    gametype="22,W,8,8,N2,1",
    pdn_win_points=1,  # PDN 3.0 GameType table: the "Default" result type (1-0, 1/2-1/2)
)

TURKISH = Rules(
    id="turkish",
    name_en="Turkish draughts",
    name_de="Türkisch (Dama)",
    board=BOARD_8_ORTHOGONAL,
    first_to_move=Color.WHITE,
    start_rows=(1, 2),  # rows 2-3 and 6-7; the back rows start empty
    men_steps=FORWARD_SIDEWAYS,
    men_capture=FORWARD_SIDEWAYS,
    flying_kings=True,  # along ranks and files
    capture_precedence=("pieces",),
    men_capture_kings=True,
    captured_removed_at_once=True,  # each captured piece leaves at once
    crowning_in_capture=CrowningInCapture.PASSES,
    no_turning_back=True,  # never a 180-degree turn between two jumps
    draw_rules=FIFTY_MOVES,
    notation="algebraic",
    capture_separator="x",
    fen_accepts_numbers=False,
    gametype="30,W,8,8,A0,0",
    pdn_win_points=1,  # PDN 3.0 GameType table: the "Default" result type (1-0, 1/2-1/2)
)

VARIANTS: dict[str, Rules] = {
    r.id: r for r in (ENGLISH, INTERNATIONAL, BRAZILIAN, RUSSIAN, SPANISH, ITALIAN, TURKISH)
}
# The rule set a game gets when none is named: the API's default and the home page's
# first choice (client-js/variants.js mirrors it; tests/e2e/test_site.py checks).
DEFAULT_VARIANT = ENGLISH.id


def get_rules(variant: str) -> Rules:
    """The rule set with this id; ``UnknownVariantError`` lists the known ones."""
    try:
        return VARIANTS[variant]
    except (KeyError, TypeError):
        known = ", ".join(VARIANTS)
        raise UnknownVariantError(f"unknown rule set {variant!r}: choose one of {known}") from None
