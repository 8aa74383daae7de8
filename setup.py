"""Build the compiled engine: every module in ext/splendor_ai/*.pyx becomes splendor_ai.<name>.

SPLENDOR_DEBUG=1 builds a debug engine instead: Cython's bounds, wraparound and initialisation
checks on, AddressSanitizer and UndefinedBehaviorSanitizer compiled in, -O1 -g (run it with
libasan preloaded: experiments/debug_check.sh builds it in a temporary copy and runs the tests).
"""
import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent
DEBUG = os.environ.get("SPLENDOR_DEBUG", "") not in ("", "0")
SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]
# a build of the other kind than the last one is done afresh: its targets look up to date
STAMP = HERE / "build" / "splendor-build-kind"
KIND = "debug" if DEBUG else "release"
FORCE = not STAMP.exists() or STAMP.read_text() != KIND
extensions = [
    Extension(
        f"splendor_ai.{pyx.stem}",
        [str(pyx.relative_to(HERE))],
        extra_compile_args=["-O1", "-g", *SANITIZE] if DEBUG else ["-O3"],
        extra_link_args=SANITIZE if DEBUG else [],
    )
    for pyx in sorted((HERE / "ext" / "splendor_ai").glob("*.pyx"))
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["ext"],
        language_level=3,
        compiler_directives={
            "boundscheck": DEBUG,
            "wraparound": DEBUG,
            "initializedcheck": DEBUG,
            "cdivision": True,       # C division in both (UBSan reports a division by zero)
        },
        force=FORCE,
    ),
    options={"build_ext": {"force": FORCE}},
)
STAMP.parent.mkdir(exist_ok=True)
STAMP.write_text(KIND)
