# Types of the compiled extension built from engine/_accel/*.c (see engine/accel.py).

MAX_SQUARES: int
SOURCES: str  # digest of the C sources built (setup.py), compared by engine/accel.py

class Tables:
    def __init__(
        self,
        mask: int,
        promotion: tuple[int, int],
        flags: tuple[int, int, int, int, int],
        precedence: tuple[int, ...],
        step_dirs: tuple[tuple[int, ...], tuple[int, ...]],
        capture_dirs: tuple[tuple[int, ...], tuple[int, ...]],
        king_dirs: tuple[int, ...],
        rays: list[tuple[tuple[int, ...], ...]],
    ) -> None: ...

def legal_moves(
    tables: Tables, own: int, opp: int, kings: int, turn: int, keep_duplicates: bool
) -> list[tuple[tuple[int, ...], tuple[int, ...], int, bool]]: ...
def count_moves(
    tables: Tables, own: int, opp: int, kings: int, turn: int, keep_duplicates: bool
) -> int: ...
def has_capture(tables: Tables, own: int, opp: int, kings: int, turn: int) -> bool: ...
def perft(
    tables: Tables,
    own: int,
    opp: int,
    kings: int,
    turn: int,
    depth: int,
    keep_duplicates: bool,
    table_bits: int,
) -> int: ...
