"""Camera addresses as they may be shown: secrets masked (issue 47).

A network camera's address often carries its credentials: ``rtsp://admin:pa55@cam/stream``, a
password with an ``@``, ``:`` or ``/`` in it (``rtsp://admin:p@ss/w:rd@192.168.1.9:554/``), or a
token in the query (``http://cam:8080/video?token=...``, ``?key=``, ``?auth=``, a signature).
:func:`mask_url` is the one function every message, log line and file the table writes passes a
camera address through: the user name is kept (it says which account), everything else of the user
information is ``***``, and so is the value of every query and fragment parameter (any of them may
be a token; a camera's channel number is not worth the risk).  The host, port and path stay, so the
message still says which camera.  :func:`mask_urls` does the same to every address inside a longer
text (an error from OpenCV or a library that quotes the address it was given).

Pure string work, no parsing library: ``urllib.parse`` splits user information at the first ``@``
or stops at a ``/`` in a password, which is exactly the half-masking this module exists to avoid.
"""

from __future__ import annotations

import re

MASK = "***"

#: the source kinds whose specs are not addresses (nothing secret in them)
_PLAIN_KINDS = ("recorded", "v4l2", "usb", "picam", "fake")

#: an address inside a longer text: a scheme, "://", then up to white space or a quote
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>`]+")


def _mask_params(part: str) -> str:
    """``a=1&b=2`` -> ``a=***&b=***``; a parameter without ``=`` (a bare token) becomes ``***``."""
    out = []
    for param in re.split(r"([&;])", part):
        if param in ("&", ";") or param == "":
            out.append(param)
        elif "=" in param:
            out.append(param.split("=", 1)[0] + "=" + MASK)
        else:
            out.append(MASK)
    return "".join(out)


def _mask_user(userinfo: str) -> str:
    """The user information before the host's ``@``: the user name kept, the rest masked."""
    user, colon, _ = userinfo.partition(":")
    if colon and user and not re.search(r"[@/?#\[\]]", user):
        return f"{user}:{MASK}"
    return MASK


def mask_url(url: str) -> str:
    """``url`` as it may be printed or logged: its password and query values replaced by ``***``.

    ``rtsp://admin:p@ss:w/rd@[fe80::1]:554/live?token=abc`` -> ``rtsp://admin:***@[fe80::1]:554/live?token=***``.
    A spec that is not an address (``recorded:DIR``, ``v4l2:0``, ``picam``, ``fake``) is returned as
    it is.  The user information ends at the *last* ``@`` (a password may hold ``@``, ``:`` and
    ``/``); when an ``@`` stands in a query instead, more is masked than needed, never less.
    """
    if not isinstance(url, str):
        return url
    scheme, sep, rest = url.partition("://")
    if not sep:
        kind = url.partition(":")[0].strip().lower()
        if kind in _PLAIN_KINDS or not any(c in url for c in "@?#"):
            return url
        # not an address this table reads, yet written like one ("user:pw@host", "rtsp:/host?token=")
        return _mask_rest(url, keep_user=False)
    return f"{scheme}://{_mask_rest(rest)}"


def _mask_rest(rest: str, keep_user: bool = True) -> str:
    """What follows ``scheme://``: user information (up to the last ``@``), query and fragment masked."""
    if "@" in rest:
        at = rest.rindex("@")
        head, tail = (_mask_user(rest[:at]) if keep_user else MASK) + "@", rest[at + 1 :]
    else:
        head, tail = "", rest
    tail, hash_, fragment = tail.partition("#")
    tail, q, query = tail.partition("?")
    masked = head + tail
    if q:
        masked += "?" + _mask_params(query)
    if hash_:
        masked += "#" + _mask_params(fragment)
    return masked


def mask_urls(text: str) -> str:
    """Every address inside ``text`` passed through :func:`mask_url` (for messages of other code)."""
    if not isinstance(text, str) or "://" not in text:
        return text
    return _URL_IN_TEXT.sub(lambda m: mask_url(m.group(0)), text)
