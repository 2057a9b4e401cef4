"""The exceptions the vinci package raises.

Every message is one line: what is wrong, where, and what to do, as the
command-line tools print it (without their "tool: error:" prefix).
"""


class Error(Exception):
    """Base class of every error raised by the vinci package."""


class CompileError(Error):
    """The compiler rejected the model or the options.

    ``messages`` holds every error line (an unsupported-operator report has
    one per node); ``exit_code`` is what vinci-compile would have returned
    (2 for bad input, 1 for a model with unsupported operators).
    """

    def __init__(self, messages, exit_code=2):
        self.messages = list(messages) or ["compilation failed"]
        self.exit_code = exit_code
        super().__init__("\n".join(self.messages))


class UnsupportedOperatorError(CompileError):
    """The model uses operators Vinci cannot import or lower.

    ``ops`` maps each unsupported operator (e.g. ``"aten.grid_sampler_2d.default"``)
    to its number of uses, when the importer knows them.
    """

    def __init__(self, messages, ops=None):
        self.ops = dict(ops or {})
        super().__init__(messages, exit_code=1)


class ModelLoadError(Error):
    """An .om file cannot be loaded: missing, unreadable, damaged or for another SoC.

    ``status`` is the runtime's status name (e.g. ``"bad magic"``).
    """

    def __init__(self, message, status=None):
        self.status = status
        super().__init__(message)


class InputError(Error, ValueError):
    """Inputs given to Model.run do not match the model's inputs."""


class ExecutionError(Error):
    """A run failed in the runtime or the simulator (e.g. a pipe hazard)."""

    def __init__(self, message, status=None):
        self.status = status
        super().__init__(message)


# vinci_status codes (vinci/runtime.h) by the error they become here.
_LOAD_STATUSES = set(range(2, 15))        # IO .. BAD_PROGRAM: the file or its contents
_INPUT_STATUSES = {1, 15, 16}             # INVALID_ARGUMENT, NOT_FOUND, SIZE_MISMATCH


def _from_runtime_status(code, status_name, message):
    """Called by vinci._runtime to turn a C API failure into an exception."""
    if code in _LOAD_STATUSES:
        return ModelLoadError(message, status_name)
    if code in _INPUT_STATUSES:
        return InputError(message)
    return ExecutionError(message, status_name)
