"""The one exception of the experiment tools: a bad experiment setup, named in its message."""
from ..errors import SplendorError


class ExperimentError(SplendorError):
    """A bad option, player spec, results folder or records file of an experiment."""
