"""The optional C accelerator, engine._accel (issue 33 point 4).

Everything else is declared in pyproject.toml. The extension is built from every
engine/_accel/*.c file, and it is optional: with no C compiler (or one without
``unsigned __int128``, such as MSVC) the build step fails quietly, the install goes
on, and the engine runs in pure Python (engine/accel.py's ``available()`` is False).
"""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCES = Path("engine/_accel")


def sources_fingerprint(folder: Path) -> str:
    """engine/accel.py's function of that name (it cannot be imported before the build):
    the module carries the digest of the sources it was built from."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.c")) + sorted(folder.glob("*.h")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


setup(
    ext_modules=[
        Extension(
            "engine._accel",
            sources=[str(p) for p in sorted(SOURCES.glob("*.c"))],
            depends=[str(p) for p in sorted(SOURCES.glob("*.h"))],
            define_macros=[("ACCEL_SOURCES", f'"{sources_fingerprint(SOURCES)}"')],
            extra_compile_args=["-O3", "-Wall", "-Wextra"],
            optional=True,
        )
    ]
)
