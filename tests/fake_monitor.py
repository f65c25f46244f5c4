#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A stand-in for QEMU's human monitor on a unix socket, for the tests of
bin/vcpus.py and of bin/boot.sh's deadline: after its banner and prompt,
it answers every command with ANSWER and a prompt, or, with no ANSWER,
never says a word.

Usage: tests/fake_monitor.py PATH [ANSWER_FILE]	(serves until killed)
"""

import socket
import sys
import threading

BANNER = b"QEMU 7.2.22 monitor - type 'help' for more information\r\n(qemu) "


def session(conn, answer):
    """One client: a reply per line it sends, as the monitor gives it."""
    with conn:
        if answer is None:
            conn.recv(1)
            return
        conn.sendall(BANNER)
        buf = b""
        while True:
            data = conn.recv(4096)
            if not data:
                return
            buf += data
            while b"\n" in buf:
                _, buf = buf.split(b"\n", 1)
                conn.sendall(answer.replace("\n", "\r\n").encode() + b"(qemu) ")


def listen(path):
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(4)
    return srv


def serve(srv, answer, forever=False):
    """Serve SRV's clients in a thread (one client), or here for ever."""
    def loop():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            session(conn, answer)
            if not forever:
                return
    if forever:
        loop()
    else:
        threading.Thread(target=loop, daemon=True).start()


def main(argv):
    answer = None
    if len(argv) > 2:
        with open(argv[2], encoding="ascii") as f:
            answer = f.read()
    serve(listen(argv[1]), answer, forever=True)


if __name__ == "__main__":
    main(sys.argv)
