"""The one exception the reader raises for files it cannot use."""


class TallyError(Exception):
    """A file or directory that is not a readable Tally measurement.

    The message is one sentence meant for the user; tally-report prints it
    and exits with status 2.
    """
