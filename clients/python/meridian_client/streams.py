"""Request bodies streamed from files, paths and iterators, raw or as multipart/form-data.

Nothing is read into memory whole: a file is sent in chunks, an iterator as it yields. A body
made of bytes and seekable files can be sent again (after a 429 or 503); one that streams an
iterator cannot, and is then never retried.
"""

from __future__ import annotations

import io
import os
import uuid
from dataclasses import dataclass
from typing import (
    IO,
    Any,
    AsyncIterable,
    AsyncIterator,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import httpx

CHUNK = 256 * 1024

#: What an upload may be: bytes, text, a path, a binary file object, or an iterable of chunks
#: (sync or async; an async iterable only with the asyncio client).
Source = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", IO[bytes], Iterable[bytes], AsyncIterable[bytes]]


class FileStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A binary file sent in chunks from where it stands; replayable when it can seek."""

    def __init__(self, file: IO[bytes], chunk_size: int = CHUNK) -> None:
        self.file = file
        self.chunk_size = chunk_size
        try:
            self.start: Optional[int] = file.tell() if file.seekable() else None
        except (AttributeError, OSError, ValueError):
            self.start = None
        self.replayable = self.start is not None
        self._sent = False

    def size(self) -> Optional[int]:
        """Bytes left from the start position, when the file can tell."""
        if self.start is None:
            return None
        try:
            return os.fstat(self.file.fileno()).st_size - self.start
        except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
            pass
        try:
            end = self.file.seek(0, io.SEEK_END)
            self.file.seek(self.start)
            return end - self.start
        except (OSError, ValueError):
            return None

    def _rewind(self) -> None:
        if self.start is not None:
            self.file.seek(self.start)
        elif self._sent:
            raise httpx.StreamConsumed()
        self._sent = True

    def __iter__(self) -> Iterator[bytes]:
        self._rewind()
        while True:
            chunk = self.file.read(self.chunk_size)
            if not chunk:
                return
            yield bytes(chunk)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        # Local files: a chunk read blocks for a moment, as httpx's own multipart files do.
        self._rewind()
        while True:
            chunk = self.file.read(self.chunk_size)
            if not chunk:
                return
            yield bytes(chunk)


@dataclass
class Part:
    """One part of a multipart/form-data body: a field (`str`/`bytes`) or a file."""

    name: str
    data: Source
    filename: Optional[str] = None
    content_type: Optional[str] = None


class _Segment:
    """A part's data as something that yields chunks, and its size when known."""

    def __init__(self, data: Source) -> None:
        self.data: Union[bytes, FileStream, Iterable[bytes], AsyncIterable[bytes]]
        self.owned: Optional[IO[bytes]] = None
        if isinstance(data, str):
            self.data = data.encode("utf-8")
        elif isinstance(data, (bytes, bytearray, memoryview)):
            self.data = bytes(data)
        elif isinstance(data, os.PathLike):
            self.owned = open(os.fspath(data), "rb")
            self.data = FileStream(self.owned)
        elif hasattr(data, "read"):
            self.data = FileStream(data)  # type: ignore[arg-type]
        else:
            self.data = data

    @property
    def replayable(self) -> bool:
        return isinstance(self.data, bytes) or (isinstance(self.data, FileStream) and self.data.replayable)

    def size(self) -> Optional[int]:
        if isinstance(self.data, bytes):
            return len(self.data)
        if isinstance(self.data, FileStream):
            return self.data.size()
        return None

    def __iter__(self) -> Iterator[bytes]:
        if isinstance(self.data, bytes):
            yield self.data
            return
        if isinstance(self.data, FileStream) or isinstance(self.data, Iterable):
            for chunk in self.data:
                yield bytes(chunk)
            return
        raise TypeError("an async iterable can be sent only by the asyncio client (AsyncMeridian)")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if isinstance(self.data, bytes):
            yield self.data
        elif isinstance(self.data, FileStream):
            async for chunk in self.data:
                yield chunk
        elif isinstance(self.data, AsyncIterable):
            async for chunk in self.data:
                yield bytes(chunk)
        else:
            for chunk in self.data:
                yield bytes(chunk)

    def close(self) -> None:
        if self.owned is not None:
            self.owned.close()


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


class MultipartBody(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A multipart/form-data body streamed part by part (files and iterators included)."""

    def __init__(self, parts: Sequence[Part], boundary: Optional[str] = None) -> None:
        self.boundary = boundary or uuid.uuid4().hex
        self._parts: List[Tuple[bytes, _Segment]] = []
        for part in parts:
            head = f'--{self.boundary}\r\nContent-Disposition: form-data; name="{_quote(part.name)}"'
            if part.filename is not None:
                head += f'; filename="{_quote(part.filename)}"'
            head += "\r\n"
            content_type = part.content_type or ("application/octet-stream" if part.filename is not None else None)
            if content_type:
                head += f"Content-Type: {content_type}\r\n"
            self._parts.append(((head + "\r\n").encode("utf-8"), _Segment(part.data)))
        self._tail = f"--{self.boundary}--\r\n".encode("ascii")
        self.replayable = all(segment.replayable for _, segment in self._parts)

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def content_length(self) -> Optional[int]:
        total = len(self._tail)
        for head, segment in self._parts:
            size = segment.size()
            if size is None:
                return None
            total += len(head) + size + 2
        return total

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": self.content_type}
        length = self.content_length()
        if length is None:
            headers["Transfer-Encoding"] = "chunked"
        else:
            headers["Content-Length"] = str(length)
        return headers

    def __iter__(self) -> Iterator[bytes]:
        for head, segment in self._parts:
            yield head
            yield from segment
            yield b"\r\n"
        yield self._tail

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for head, segment in self._parts:
            yield head
            async for chunk in segment:
                yield chunk
            yield b"\r\n"
        yield self._tail

    def close(self) -> None:
        for _, segment in self._parts:
            segment.close()

    async def aclose(self) -> None:
        self.close()


class RawBody(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A raw request body streamed from bytes, a path, a file or an iterator."""

    def __init__(self, data: Source) -> None:
        self._segment = _Segment(data)
        self.replayable = self._segment.replayable

    def headers(self) -> dict[str, str]:
        size = self._segment.size()
        if size is None:
            return {"Transfer-Encoding": "chunked"}
        return {"Content-Length": str(size)}

    def __iter__(self) -> Iterator[bytes]:
        yield from self._segment

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._segment:
            yield chunk

    def close(self) -> None:
        self._segment.close()

    async def aclose(self) -> None:
        self.close()


def parts_from(fields: Mapping[str, Any]) -> List[Part]:
    """`Part`s from a mapping: `Part` values as they are, `(filename, data[, content_type])`
    tuples as files, paths as files named after them, dicts and lists as JSON fields, other
    values as text fields."""
    import json

    parts: List[Part] = []
    for name, value in fields.items():
        if isinstance(value, Part):
            parts.append(value)
        elif isinstance(value, tuple):
            filename, data = value[0], value[1]
            content_type = value[2] if len(value) > 2 else "application/octet-stream"
            parts.append(Part(name, data, filename=filename, content_type=content_type))
        elif isinstance(value, os.PathLike):
            parts.append(
                Part(name, value, filename=os.path.basename(os.fspath(value)), content_type="application/octet-stream")
            )
        elif isinstance(value, (dict, list)):
            parts.append(Part(name, json.dumps(value), content_type="application/json"))
        elif isinstance(value, (str, bytes)):
            parts.append(Part(name, value))
        elif hasattr(value, "read"):
            filename = os.path.basename(str(getattr(value, "name", name)))
            parts.append(Part(name, value, filename=filename, content_type="application/octet-stream"))
        else:
            parts.append(Part(name, str(value)))
    return parts
