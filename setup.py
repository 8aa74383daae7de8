"""Build the compiled engine: every module in ext/splendor_ai/*.pyx becomes splendor_ai.<name>."""
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).parent
extensions = [
    Extension(
        f"splendor_ai.{pyx.stem}",
        [str(pyx.relative_to(HERE))],
        extra_compile_args=["-O3"],
    )
    for pyx in sorted((HERE / "ext" / "splendor_ai").glob("*.pyx"))
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["ext"],
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
)
