"""Errors the core raises for adapters to turn into clear messages."""

from __future__ import annotations


class DrillError(Exception):
    """Base class: the message is fit to show a person."""


class DrillNotFound(DrillError):
    def __init__(self, drill_id: int) -> None:
        super().__init__(f"No drill #{drill_id} in this workspace.")


class NotRecorded(DrillError):
    def __init__(self) -> None:
        super().__init__("Your answer was not recorded (a database error). Please send it again.")


class EmptyRevision(DrillError):
    def __init__(self, drill_id: int) -> None:
        super().__init__(
            f"That answer is empty, so it was not recorded; your earlier answer to drill #{drill_id} still counts."
        )


class GroupError(DrillError):
    pass


class AlreadyStarted(DrillError):
    """A scheduled slot whose drill another replica (or an earlier run) already started."""

    def __init__(self, slot_key: str) -> None:
        super().__init__(f"The drill for {slot_key} was already started.")
        self.slot_key = slot_key


class ChatUnreachable(DrillError):
    """The platform will never take this post (the bot was removed, lost its permissions, the channel is gone):
    retrying cannot help, so a reveal that hits this is not retried."""
