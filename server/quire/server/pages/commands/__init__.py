"""RunCommand: bounded read-only shell-like commands over a page namespace."""

from quire.server.pages.commands._runtime import CommandLimits, CommandOutcome
from quire.server.pages.commands.runner import COMMANDS, run_command

__all__ = ["COMMANDS", "CommandLimits", "CommandOutcome", "run_command"]
