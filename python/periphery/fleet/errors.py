"""The typed errors of `periphery.fleet`: each names the file or option at fault."""


class FleetError(Exception):
    """A fleet run cannot start or go on (bad arguments, an output folder in use, no cluster)."""


class InputError(FleetError):
    """An input on the command line or in a manifest cannot be used; names the file."""

    def __init__(self, path, reason, named=False):
        """`named`: `reason` already starts with the file's name (the library's messages do)."""
        super().__init__(reason if named else f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason
