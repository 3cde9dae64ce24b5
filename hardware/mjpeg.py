"""A network camera's MJPEG over HTTP(S), read by the table itself so that every frame is bounded
before it is decoded (issue 47): a camera, or whoever impersonates one on the LAN, decides how large
its frames are, and OpenCV's FFmpeg decodes whatever it is sent (a 16000 x 16000 JPEG of 1.5 MB is
768 MB decoded, a 2 GB Pi is killed for memory).

:class:`MjpegStream` reads ``multipart/x-mixed-replace`` (a phone's IP-camera app, a second Pi,
ffmpeg's ``mpjpeg``) or one ``image/*`` body a request (a snapshot camera):

* a part whose ``Content-Length`` is over :data:`MAX_PART_BYTES` is never read: the stream is
  skipped to the next boundary, a window of 64 KB at a time; a part without a length is read up to
  the boundary and dropped once it passes the same bound;
* a part's image header (its first 64 KB) is checked against ``hardware.imagefile``'s one size
  check (64 megapixels) before the rest is read, and the whole once more before it is decoded.

A frame refused is :class:`hardware.imagefile.ImageError` (the caller skips it and says so); a stream
that fails is :class:`StreamError`; a server that sends something else (an H.264 stream over HTTP)
is :class:`NotMjpeg`, for the caller to hand to FFmpeg.  Basic authentication from the URL's user
information (a password may hold ``@``, ``:`` or ``/``).
"""

from __future__ import annotations

import base64
import http.client
import re
import ssl
from urllib.parse import unquote

import numpy as np

from hardware.imagefile import MAX_PIXELS, ImageError, check_size, decode, image_size

#: the most bytes of one frame read (a 64-megapixel JPEG at a camera's quality is well below this)
MAX_PART_BYTES = 32 * 1024 * 1024
#: what is read of a part before its header is checked (a JPEG's frame header lies in its first bytes)
HEAD_BYTES = 64 * 1024
#: a part's header line, and how many of them, at most
MAX_LINE, MAX_HEADERS = 8 * 1024, 64
WINDOW = 64 * 1024


class StreamError(OSError):
    """The stream cannot be opened or stopped (connection, HTTP status, a malformed multipart)."""


class NotMjpeg(StreamError):
    """The server answers, but not with MJPEG or an image: its ``Content-Type`` is in ``kind``."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def split_url(url: str) -> tuple[str, str, str, str | None]:
    """(scheme, host[:port], path?query, "user:password" or None) of an http(s) URL.

    The user information ends at the last ``@`` before the query (a password may hold ``@``, ``:``
    and ``/``; an ``@`` in a query is no user's)."""
    scheme, _, rest = url.partition("://")
    before_query = rest.split("?", 1)[0].split("#", 1)[0]
    auth = None
    if "@" in before_query:
        at = before_query.rindex("@")
        auth, rest = unquote(rest[:at]), rest[at + 1 :]
    rest = rest.split("#", 1)[0]
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    netloc, path = rest[:cut], rest[cut:] or "/"
    if path.startswith("?"):
        path = "/" + path
    return scheme.lower(), netloc, path, auth


class MjpegStream:
    """One HTTP(S) connection to an MJPEG camera (module docstring); ``next_image()`` is a frame."""

    def __init__(self, url: str, name: str, timeout_s: float = 5.0, max_pixels: int = MAX_PIXELS) -> None:
        self.url, self.name, self.timeout_s, self.max_pixels = url, name, timeout_s, max_pixels
        self._conn: http.client.HTTPConnection | None = None
        self._resp: http.client.HTTPResponse | None = None
        self._buf = bytearray()
        self.boundary: bytes | None = None
        self._still: http.client.HTTPResponse | None = None
        self._open()

    # -- the connection ------------------------------------------------------------------------

    def _request(self) -> http.client.HTTPResponse:
        scheme, netloc, path, auth = split_url(self.url)
        try:
            if scheme == "https":
                # the certificate is not verified, as FFmpeg did not: a camera's own is self-signed
                context = ssl.create_default_context()
                context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
                conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                    netloc, timeout=self.timeout_s, context=context
                )
            else:
                conn = http.client.HTTPConnection(netloc, timeout=self.timeout_s)
            headers = {"Accept": "multipart/x-mixed-replace, image/jpeg, */*", "Connection": "close"}
            if auth is not None:
                headers["Authorization"] = "Basic " + base64.b64encode(auth.encode()).decode("ascii")
            conn.request("GET", path, headers=headers)
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise StreamError(f"cannot connect: {type(e).__name__}: {e}") from None
        self._conn = conn
        if resp.status == 401:
            scheme = (resp.getheader("WWW-Authenticate", "") or "").split(" ", 1)[0]
            self.close()
            if auth is not None and scheme.lower() == "digest":  # FFmpeg answers a digest challenge
                raise NotMjpeg("the camera asks for digest authentication", "digest")
            raise StreamError("the camera refused the user name and password in the address (HTTP 401)")
        if resp.status != 200:
            self.close()
            raise StreamError(f"the camera answered HTTP {resp.status} {resp.reason}")
        return resp

    def _open(self) -> None:
        resp = self._request()
        kind = resp.getheader("Content-Type", "") or ""
        if kind.lower().startswith("multipart/"):
            found = re.search(r'boundary="?([^";,]+)"?', kind, re.I)
            if found is None:
                self.close()
                raise StreamError(f"a multipart stream without a boundary ({kind!r})")
            self.boundary = found.group(1).strip().encode("latin-1")
            self._resp = resp
        elif kind.lower().startswith("image/"):
            self._still = resp  # one picture a request: taken by the first next_image()
        else:  # ffmpeg's own server says application/octet-stream: a multipart is told by its first line
            self._resp = resp
            try:
                first = self._line()
            except StreamError:  # no line at all: a binary stream (H.264 over HTTP)
                first = b""
            if not first.startswith(b"--") or len(first) < 3:
                self.close()
                raise NotMjpeg(f"the camera sends {kind or 'no Content-Type'}, not MJPEG", kind)
            self.boundary = first[2:].strip()
            self._buf[:0] = first + b"\r\n"

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._resp = self._still = None
        self._buf.clear()

    # -- the bytes -----------------------------------------------------------------------------

    def _fill(self) -> None:
        assert self._resp is not None
        try:
            chunk = self._resp.read1(WINDOW)
        except (OSError, http.client.HTTPException) as e:
            raise StreamError(f"the stream stopped ({type(e).__name__}: {e})") from None
        if not chunk:
            raise StreamError("the stream stopped (the camera closed the connection)")
        self._buf += chunk

    def _line(self) -> bytes:
        while (end := self._buf.find(b"\n", 0, MAX_LINE)) < 0:
            if len(self._buf) >= MAX_LINE:
                raise StreamError(f"a line of the stream over {MAX_LINE} bytes: not MJPEG")
            self._fill()
        line = bytes(self._buf[:end]).rstrip(b"\r")
        del self._buf[: end + 1]
        return line

    def _exact(self, n: int) -> bytes:
        while len(self._buf) < n:
            self._fill()
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data

    def _marker(self) -> bytes:
        assert self.boundary is not None
        b = self.boundary
        return b"\n" + (b if b.startswith(b"--") else b"--" + b)

    def _upto_boundary(self, limit: int) -> bytes | None:
        """The bytes before the next boundary line (consumed), or None past ``limit`` (then skipped)."""
        marker = self._marker()
        start = 0
        while (at := self._buf.find(marker, start)) < 0:
            if len(self._buf) > limit:
                self._skip_to_boundary()
                return None
            start = max(0, len(self._buf) - len(marker))
            self._fill()
        data = bytes(self._buf[:at]).rstrip(b"\r")
        del self._buf[: at + 1]
        return data

    def _skip_to_boundary(self) -> None:
        """Drop bytes up to the next boundary line, never holding more than a window of them."""
        marker = self._marker()
        while (at := self._buf.find(marker)) < 0:
            keep = len(marker) - 1
            del self._buf[: max(0, len(self._buf) - keep)]
            self._fill()
        del self._buf[: at + 1]

    def _is_boundary(self, line: bytes) -> bool:
        assert self.boundary is not None
        b = self.boundary
        return line.startswith(b"--" + b) or (b.startswith(b"--") and line.startswith(b))

    def _early_check(self, head: bytes) -> None:
        """A part's header, from its first bytes: refused (ImageError) when it claims too much."""
        try:
            found = image_size(head)
        except ImageError as e:
            raise ImageError(f"{self.name}: {e}") from None
        if found is not None:
            check_size(*found, self.name, self.max_pixels)

    # -- frames --------------------------------------------------------------------------------

    def _part(self) -> bytes:
        skipped = 0
        while not self._is_boundary(line := self._line()):
            skipped += len(line) + 1
            if skipped > MAX_PART_BYTES:
                raise StreamError(f"no multipart boundary in {MAX_PART_BYTES} bytes: not MJPEG")
        length: int | None = None
        for _ in range(MAX_HEADERS + 1):
            line = self._line()
            if not line:
                break
            key, _, value = line.decode("latin-1").partition(":")
            if key.strip().lower() == "content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    length = None
                if length is not None and length < 0:
                    length = None
        else:
            raise StreamError(f"a part with more than {MAX_HEADERS} header lines: not MJPEG")
        if length is not None:
            if length > MAX_PART_BYTES:
                self._skip_to_boundary()
                raise ImageError(
                    f"{self.name}: a frame of {length} bytes; at most {MAX_PART_BYTES} are read "
                    "(skipped unread)"
                )
            head = self._exact(min(length, HEAD_BYTES))
            try:
                self._early_check(head)
            except ImageError:
                self._skip_to_boundary()
                raise
            return head + self._exact(length - len(head))
        while len(self._buf) < HEAD_BYTES and self._buf.find(self._marker()) < 0:
            self._fill()
        try:
            self._early_check(bytes(self._buf[:HEAD_BYTES]))
        except ImageError:
            self._skip_to_boundary()
            raise
        data = self._upto_boundary(MAX_PART_BYTES)
        if data is None:
            raise ImageError(f"{self.name}: a frame over {MAX_PART_BYTES} bytes long (skipped unread)")
        return data

    def _still_body(self) -> bytes:
        resp = self._still
        if resp is None:  # a snapshot camera: a request a picture
            self.close()
            self._open()
            resp = self._still
            if resp is None:
                raise StreamError("the camera switched from one picture a request to a stream")
        self._still = None
        length = resp.getheader("Content-Length")
        n = int(length) if length and length.strip().isdigit() else None
        if n is not None and n > MAX_PART_BYTES:
            self.close()
            raise ImageError(f"{self.name}: a picture of {n} bytes; at most {MAX_PART_BYTES} are read")
        try:
            head = resp.read(HEAD_BYTES if n is None else min(n, HEAD_BYTES))
            self._early_check(head)
            rest = resp.read(MAX_PART_BYTES + 1 - len(head))
        except ImageError:
            self.close()
            raise
        except (OSError, http.client.HTTPException) as e:
            raise StreamError(f"the picture stopped ({type(e).__name__}: {e})") from None
        data = head + rest
        if len(data) > MAX_PART_BYTES:
            self.close()
            raise ImageError(f"{self.name}: a picture over {MAX_PART_BYTES} bytes long (not read)")
        return data

    def next_image(self) -> np.ndarray:
        """The next frame decoded (BGR uint8); ImageError: this one refused (skip it and read on);
        StreamError: the stream failed."""
        data = self._still_body() if self.boundary is None else self._part()
        return decode(data, self.name, self.max_pixels)
