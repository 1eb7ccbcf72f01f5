"""The network between two brokers on loopback, as a test can cut it: a TCP relay from a port
of 127.0.0.1 to another. ``cut`` drops every connection through it and refuses new ones
(the link is down, both ends keep running); ``mend`` listens again on the same port."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading

from firmware_py.loopback import free_port


class Cable:
    def __init__(self, target_port: int, port: int | None = None) -> None:
        self.target = target_port
        self.port = port or free_port()
        self.connections = 0  # accepted so far: each a (re)connection of the bridge
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self.mend()

    @property
    def up(self) -> bool:
        return self._listener is not None

    def mend(self) -> None:
        assert self._listener is None
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(8)
        self._listener = listener
        self._thread = threading.Thread(target=self._accept, args=(listener,),
                                        name="test-cable", daemon=True)
        self._thread.start()

    def cut(self) -> None:
        listener, self._listener = self._listener, None
        assert listener is not None
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        if self._thread is not None:
            self._thread.join(5)
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for a, b in pairs:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def close(self) -> None:
        if self.up:
            self.cut()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                near, _ = listener.accept()
            except OSError:
                return  # cut
            try:
                far = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                near.close()
                continue
            far.settimeout(None)
            for s in (near, far):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._pairs.append((near, far))
                self.connections += 1
            threading.Thread(target=self._pipe, args=(near, far), name="test-cable-pipe",
                             daemon=True).start()

    def _pipe(self, near: socket.socket, far: socket.socket) -> None:
        other = {near: far, far: near}
        with selectors.DefaultSelector() as sel:
            for s in other:
                sel.register(s, selectors.EVENT_READ)
            while True:
                try:
                    ready = sel.select(1.0)
                except (OSError, ValueError):
                    return  # cut: the sockets were closed under the selector
                for key, _ in ready:
                    src = key.fileobj
                    assert isinstance(src, socket.socket)
                    try:
                        data = src.recv(65536)
                        if not data:
                            raise OSError("closed")
                        other[src].sendall(data)
                    except OSError:
                        for s in other:
                            with contextlib.suppress(OSError):
                                s.close()
                        return
                if near.fileno() < 0 or far.fileno() < 0:
                    return
