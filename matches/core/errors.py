"""The refusals every part of matches/ raises and shows: `str(e)` is a plain sentence."""

from __future__ import annotations


class ServiceError(Exception):
    """A refusal; `str(e)` is a plain sentence shown to the user."""


class StaleVersion(ServiceError):
    """The client acted on an old version of the bout."""


class NotAllowed(ServiceError):
    """This person may not do this now."""
