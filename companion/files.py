"""Writing files so that a crash at any moment leaves either the old file or the whole new one."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

from companion.errors import CompanionError


def write_atomically(path: Path, content: str | bytes) -> None:
    path = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file private; a written match or profile should be as readable as any other file
        os.chmod(temp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        os.replace(temp, path)
    except OSError as exc:
        raise CompanionError(f"cannot write {path}: {exc.strerror or exc}") from exc
    _fsync_dir(path.parent)


def npz_bytes(*, compressed: bool = False, **arrays) -> bytes:
    """Arrays as the bytes of an `.npz` file, for `write_atomically` (NumPy imported here: the recorder needs none)."""
    import numpy as np

    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)
    return buffer.getvalue()


def unique_path(path: Path) -> Path:
    """`path`, or `name-2.ext`, `name-3.ext`, ... beside it: the first that does not exist (never overwrite)."""
    path = Path(path)
    candidate, number = path, 2
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")
        number += 1
    return candidate


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder or ".", os.O_RDONLY)
    except OSError:  # pragma: no cover - some filesystems do not open folders
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
