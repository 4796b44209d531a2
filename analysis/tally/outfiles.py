"""The one way tally-report writes a file (the report with -o, --plot,
--csv-dir, --hatchet, --html): through a descriptor it created and
checked, never through a name a neighbour could have planted.

The directory is opened with O_DIRECTORY|O_NOFOLLOW (a symbolic link in
its place is refused) and each file is created in it with
O_CREAT|O_EXCL|O_NOFOLLOW relative to that descriptor: an existing file
or a planted link is never followed nor replaced; the file is written as
<stem>.1<ext>, <stem>.2<ext>, ... instead, and the name really written is
returned (and printed by the callers).  "-" is standard output, and an
existing character device or FIFO (/dev/null) is written in place: no file
is created there.
"""
import errno
import os
import stat

from .errors import TallyError

FLAGS = os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
MAX_SUFFIX = 1000


class OutDir:
    """A directory opened for creating files; use as a context manager."""

    def __init__(self, path, create=False):
        self.path = path or "."
        if create and not os.path.lexists(self.path):
            os.makedirs(self.path, exist_ok=True)
        try:
            self.fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except OSError as e:
            if os.path.islink(self.path):
                raise TallyError(f"{self.path}: a symbolic link; tally-report writes only into a real "
                                 "directory") from None
            raise TallyError(f"{self.path}: cannot open the directory ({e.strerror})") from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def create(self, name, binary=False):
        """(open file object, path written) for a new file name in this
        directory; a suffixed name when name exists (file or link)."""
        if "/" in name or name in ("", ".", ".."):
            raise TallyError(f"{name!r}: not a plain file name")
        stem, ext = os.path.splitext(name)
        for i in range(MAX_SUFFIX):
            cand = name if i == 0 else f"{stem}.{i}{ext}"
            try:
                fd = os.open(cand, FLAGS, 0o666, dir_fd=self.fd)
            except FileExistsError:
                continue
            except OSError as e:
                raise TallyError(f"{os.path.join(self.path, cand)}: cannot create it ({e.strerror})") from None
            if not stat.S_ISREG(os.fstat(fd).st_mode):   # cannot happen with O_EXCL; checked all the same
                os.close(fd)
                raise TallyError(f"{os.path.join(self.path, cand)}: not a regular file")
            mode = "wb" if binary else "w"
            return os.fdopen(fd, mode, **({} if binary else {"encoding": "utf-8", "newline": ""})), \
                os.path.join(self.path, cand)
        raise TallyError(f"{os.path.join(self.path, name)}: it and {MAX_SUFFIX - 1} suffixed names exist")


def _to_stdout(data, binary):
    import sys
    if binary:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(data)
        sys.stdout.flush()


def _to_device(path, data, binary):
    """Write to an existing character device or FIFO (/dev/null, a pipe
    the user made, /dev/stdout): what the user named, nothing created.
    False when path is no such thing.  The open never follows a link put
    at the name nor blocks on a FIFO without a reader (ENXIO: one line)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        return False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise TallyError(f"{path}: cannot write to it ({e.strerror}"
                         + ("; a FIFO needs its reader first" if e.errno == errno.ENXIO else "") + ")") from None
    st = os.fstat(fd)
    if not (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):   # swapped since the lstat
        os.close(fd)
        raise TallyError(f"{path}: changed while being opened; nothing written")
    os.set_blocking(fd, True)
    with os.fdopen(fd, "wb") as f:
        f.write(data if binary else data.encode("utf-8"))
    return True


def write(path, data, binary=False):
    """Write data (str or bytes) to a new file at path (directory: the
    path's, which must exist); returns the path written.  "-" is standard
    output; an existing character device or FIFO (/dev/null) is written
    as it is, never suffixed."""
    if path == "-":
        _to_stdout(data, binary)
        return path
    if _to_device(path, data, binary):
        return path
    directory, name = os.path.split(path)
    with OutDir(directory or ".") as d:
        f, written = d.create(name, binary)
        with f:
            f.write(data)
    return os.path.join(directory, os.path.basename(written))   # "r.txt", not "./r.txt": the name asked


def said(requested, written, what):
    """The line telling where a file went when it is not where asked."""
    return None if requested == written else f"tally-report: {requested} exists; {what} written to {written}"
