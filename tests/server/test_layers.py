"""server/ is laid out by layer, and each layer imports only the layers below it.

- core/: the pure game; imports only ``engine``, ``protocol`` and the standard library.
- store/: the game and ratings stores; imports core/, never services/, web/ or net/.
- services/: what a node runs; imports core/ and store/ (and net/), never web/.
- web/: the Starlette app and sockets; nothing imports it but ``python -m server``.
- net/: the only place that knows uvicorn.

The imports are read with ``ast`` (lazy ones inside functions too), so the rule holds
without importing anything.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"
FIRST_PARTY = {"engine", "protocol", "server"}


def imports_of(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports, relative imports resolved against ``package``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.add(module)
            # ``from server.core import room`` imports the module server.core.room.
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "server":
        return None
    return parts[1] if len(parts) > 1 else ""


def violations(root: Path) -> list[str]:
    """Each import in the tree under ``root`` (a ``server`` package) that breaks the rule."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent).with_suffix("")
        module = ".".join(relative.parts)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        package = package.removesuffix(".__init__")
        layer = layer_of(module)
        for imported in sorted(imports_of(path, package)):
            top = imported.split(".")[0]
            target = layer_of(imported)
            broken = None
            if top == "uvicorn" and layer != "net":
                broken = "only server/net/ may import uvicorn"
            elif target == "web" and layer != "web" and module != "server.__main__":
                broken = "nothing imports server/web/ (but python -m server)"
            elif layer == "core":
                outside_core = target is not None and target != "core"
                third_party = top not in FIRST_PARTY and top not in sys.stdlib_module_names
                if outside_core or third_party:
                    broken = "server/core/ imports only engine, protocol and the standard library"
            elif layer == "store" and target in {"services", "web", "net"}:
                broken = "server/store/ imports only server/core/"
            elif layer == "services" and target == "web":
                broken = "server/services/ never imports server/web/"
            if broken:
                found.append(f"{module} imports {imported}: {broken}")
    return found


def test_every_module_of_the_server_keeps_to_its_layer():
    assert violations(SERVER) == []


def test_the_server_has_its_five_layers():
    assert {p.name for p in SERVER.iterdir() if (p / "__init__.py").exists()} >= {
        "core",
        "services",
        "store",
        "web",
        "net",
    }


def test_a_planted_import_breaks_the_rule(tmp_path):
    tree = tmp_path / "server"
    for layer in ("core", "services", "store", "web", "net"):
        (tree / layer).mkdir(parents=True)
        (tree / layer / "__init__.py").write_text("")
    (tree / "__init__.py").write_text("")
    (tree / "core" / "room.py").write_text(
        "from ..services import games\ndef later():\n    import redis\n"
    )
    (tree / "services" / "hub.py").write_text("from server.web.app import create_app\n")
    (tree / "store" / "memory.py").write_text("import uvicorn\nfrom server.core import room\n")
    (tree / "net" / "serve.py").write_text("import uvicorn\n")
    assert violations(tree) == [
        "server.core.room imports redis: "
        "server/core/ imports only engine, protocol and the standard library",
        "server.core.room imports server.services: "
        "server/core/ imports only engine, protocol and the standard library",
        "server.core.room imports server.services.games: "
        "server/core/ imports only engine, protocol and the standard library",
        "server.services.hub imports server.web.app: "
        "nothing imports server/web/ (but python -m server)",
        "server.services.hub imports server.web.app.create_app: "
        "nothing imports server/web/ (but python -m server)",
        "server.store.memory imports uvicorn: only server/net/ may import uvicorn",
    ]
