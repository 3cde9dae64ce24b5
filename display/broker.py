"""How a table or the hall reaches the MQTT broker: address, credentials, TLS, topic prefix, client id.

``BrokerLink`` is plain data (the controller builds it from ``[mqtt]`` in
``table.toml``, the hall from its own file or flags); ``new_client`` turns it
into a paho client with the credentials, TLS and reconnect backoff set.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

DEFAULT_PREFIX = "dicetable/v1/tables"
PREFIX_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./")


def check_prefix(prefix: str) -> str:
    """A topic prefix: levels of letters, digits, '-', '_', '.', no wildcards, no empty level."""
    levels = prefix.split("/")
    if (
        not prefix
        or not set(prefix) <= PREFIX_CHARS
        or any(not level for level in levels)
        or len(prefix) > 200
    ):
        raise ValueError(
            f"topic prefix {prefix!r}: expected levels of letters, digits, '-', '_' or '.' separated by '/', "
            "without '+', '#', or a leading, trailing or doubled '/' (e.g. 'dicetable/v1/tables')"
        )
    return prefix


@dataclass(frozen=True)
class BrokerLink:
    """Where and as whom to connect.  ``password`` is the secret itself (read from its file by the caller)."""

    host: str
    port: int = 1883
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None  # TLS on when set: the CA that signed the broker's certificate
    cert_file: str | None = None  # the client's own certificate (with key_file), if the broker asks
    key_file: str | None = None
    prefix: str = DEFAULT_PREFIX
    client_id: str | None = None
    keepalive: int = 10

    @property
    def tls(self) -> bool:
        return self.ca_file is not None

    def describe(self) -> str:
        """For messages and the hall page: never the password."""
        who = f"{self.username}@" if self.username else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{who}{self.host}:{self.port}"


def new_client(link: BrokerLink, default_client_id: str) -> mqtt.Client:
    """A paho client for ``link``: credentials, TLS (certificate and host name checked), backoff 1..30 s."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=link.client_id or default_client_id)
    client.reconnect_delay_set(min_delay=1, max_delay=30)
    if link.username is not None:
        client.username_pw_set(link.username, link.password)
    if link.ca_file is not None:
        client.tls_set(
            ca_certs=link.ca_file,
            certfile=link.cert_file,
            keyfile=link.key_file,
            cert_reqs=ssl.CERT_REQUIRED,
            tls_version=ssl.PROTOCOL_TLS_CLIENT,
        )
    return client
