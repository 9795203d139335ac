"""A real HTTPS origin on loopback with a trustme CA, for tests, benchmarks and the demo.

trustme is the `demo` and `test` extras' (a user's install has none): it is imported when
a CA is made, so importing this module never needs it.

Routes map a path to a `Route` (status, headers, body) or to a callable that gets the
raw `BaseHTTPRequestHandler` and writes whatever it likes (drip feeds, bombs, lies about
Content-Length). Every request is counted per path, so tests can assert "fetched once".
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import trustme

Handler = Callable[[BaseHTTPRequestHandler], None]


def new_ca() -> trustme.CA:
    """A fresh certificate authority (trustme's), for origins whose certificates it signs."""
    try:
        import trustme
    except ImportError as exc:  # the product's own install has no trustme
        raise RuntimeError(
            "trustme is not installed: the loopback origin needs the `demo` or `test` extra; "
            "run `pip install -e '.[test]'` (or `make demo`)."
        ) from exc
    return trustme.CA()


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    content_type: str | None = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    gate: threading.Event | None = None  # answered once set: a held read, without a sleep
    gate_seconds: float = 120.0  # then answered anyway, so no request hangs for ever


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class HTTPSOrigin:
    """Serve `routes` over TLS on 127.0.0.1 (or ::1) with a certificate for `hostnames`."""

    def __init__(
        self,
        routes: dict[str, Route | Handler] | None = None,
        *,
        hostnames: tuple[str, ...] = ("origin.test", "localhost", "127.0.0.1"),
        ca: trustme.CA | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        not_after: datetime | None = None,
        self_signed: bool = False,
    ) -> None:
        """`not_after` in the past serves an expired certificate; `self_signed` serves the
        CA's own certificate (its issuer is itself) instead of a leaf it issued."""
        self.routes: dict[str, Route | Handler] = dict(routes or {})
        self.hits: Counter[str] = Counter()
        self.connections = 0
        self.ca = ca or new_ca()
        not_before = not_after - timedelta(days=30) if not_after else None
        self._cert = self.ca.issue_cert(*hostnames, not_before=not_before, not_after=not_after)
        self._self_signed = self_signed
        self._host = host
        self._port = port
        self._dir = tempfile.TemporaryDirectory(prefix="sosoapi-origin-")
        self.ca_path = Path(self._dir.name) / "ca.pem"
        self.ca.cert_pem.write_to_path(str(self.ca_path))
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.server_address[1]

    @property
    def page_hits(self) -> Counter[str]:
        """Requests per path, without the gate's own robots.txt reads."""
        return Counter({path: n for path, n in self.hits.items() if path != "/robots.txt"})

    def url(self, path: str, host: str = "origin.test") -> str:
        return f"https://{host}:{self.port}{path}"

    def start(self) -> HTTPSOrigin:
        origin = self

        class RequestHandler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # TCP_NODELAY: with Nagle on, the body's write waited for the client's delayed
            # ACK of the headers' (40 ms on Linux), so every request took 44 ms, not 0.6
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                with origin._lock:
                    origin.hits[path] += 1
                route = origin.routes.get(path)
                if route is None:
                    self._send(Route(b"not found", status=404, content_type="text/plain"))
                elif callable(route):
                    route(self)
                else:
                    self._send(route)

            def _send(self, route: Route) -> None:
                if route.delay:
                    threading.Event().wait(route.delay)
                if route.gate is not None:
                    route.gate.wait(route.gate_seconds)
                self.send_response(route.status)
                if route.content_type:
                    self.send_header("Content-Type", route.content_type)
                for name, value in route.headers.items():
                    self.send_header(name, value)
                if "Content-Length" not in route.headers:
                    self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                with contextlib.suppress(OSError):
                    self.wfile.write(route.body)

        try:
            server = _Server((self._host, self._port), RequestHandler)
        except OSError:  # the address cannot be bound: nothing started, nothing left behind
            self._dir.cleanup()
            raise
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        if self._self_signed:
            with self.ca.cert_pem.tempfile() as cert, self.ca.private_key_pem.tempfile() as key:
                context.load_cert_chain(cert, key)
        else:
            self._cert.configure_cert(context)
        raw_accept = server.get_request

        def accept() -> tuple[socket.socket, Any]:
            sock, addr = raw_accept()
            with origin._lock:
                origin.connections += 1
            return context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

        server.get_request = accept  # type: ignore[method-assign]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        self._dir.cleanup()

    def __enter__(self) -> HTTPSOrigin:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def egress_env(self, hostname: str = "origin.test") -> dict[str, str]:
        """The SOSOAPI_EGRESS_* settings that admit this origin and nothing else."""
        return {
            "SOSOAPI_EGRESS_ALLOW": f"{self._host}:{self.port}"
            if ":" not in self._host
            else f"[{self._host}]:{self.port}",
            "SOSOAPI_EGRESS_RESOLVE": f"{hostname}:{self._host}",
            "SOSOAPI_EGRESS_CA_BUNDLE": str(self.ca_path),
            "SOSOAPI_EGRESS_PORTS": f"443,{self.port}",
        }
