"""The optional C accelerator, engine._accel (issue 33 point 4).

Everything else is declared in pyproject.toml. The extension is built from every
engine/_accel/*.c file, and it is optional: with no C compiler (or one without
``unsigned __int128``, such as MSVC) the build step fails quietly, the install goes
on, and the engine runs in pure Python (engine/accel.py's ``available()`` is False).
"""

from glob import glob

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine._accel",
            sources=sorted(glob("engine/_accel/*.c")),
            depends=sorted(glob("engine/_accel/*.h")),
            extra_compile_args=["-O3", "-Wall", "-Wextra"],
            optional=True,
        )
    ]
)
