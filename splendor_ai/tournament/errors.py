"""The one exception of the experiment tools: a bad experiment setup, named in its message."""
from ..errors import SplendorError


class ExperimentError(SplendorError):
    """A bad option, player spec, results folder or records file of an experiment."""


def missing_extra(package: str, what: str) -> ExperimentError:
    """The error for an optional dependency of the experiment tools that is not installed."""
    return ExperimentError(f"{what} needs {package}, which is not installed: pip install 'splendor_ai[experiments]'")
