# Slow and greedy peers against a real server: a peer that trickles a frame is dropped
# within the frame timeout, an idle connection is closed after the idle timeout, frames
# that announce 1 MiB and send a few bytes do not make the server reserve 1 MiB each, and
# all connections together buffer no more than --conn_buffer_mb. Each time the server keeps
# serving real clients (core/doc/failures.md).
import select
import socket
import struct
import time
import unittest

import harness
from harness import MSG_CREATE, MSG_INGEST, MSG_LSTAT, MSG_STAT_REPLY, flags, frame, key_body

STAT = harness.encode_stat(7, 0o100644, 1000, 1000, 0, 1, 1)


def server_pids(servers):
    """The server job's rank processes."""
    pids = []
    for pid in servers.job.leftovers():
        try:
            with open("/proc/%d/comm" % pid) as f:
                if f.read().strip() == "deltameta_serve":
                    pids.append(pid)
        except OSError:
            pass
    return pids


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for %d" % pid)


def closed_by_server(sock):
    """True if the server has closed `sock` (without waiting)."""
    readable, _, _ = select.select([sock], [], [], 0)
    if not readable:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except ConnectionError:
        return True


def trickle(sock, data, interval, limit):
    """Sends `data` one byte every `interval` s until the server closes the connection;
    returns the seconds from the first byte to the close (None if it never closed within limit)."""
    start = time.monotonic()
    for byte in data:
        try:
            sock.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            return time.monotonic() - start
        deadline = time.monotonic() + interval
        while time.monotonic() < deadline:
            readable, _, _ = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
            if readable and closed_by_server(sock):
                return time.monotonic() - start
        if time.monotonic() - start > limit:
            break
    return None


class SlowPeers(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)
        self.socks = []

    def start(self, *args):
        self.servers = self.s.start_servers("svr", 1, self.s.path("db"), list(args))
        self.address = harness.server_addresses(self.servers)[0]

    def open(self, authenticate=True):
        sock = harness.connect(self.address, timeout=30, authenticate=authenticate)
        self.socks.append(sock)
        self.addCleanup(sock.close)
        return sock

    def log_lines(self, needle):
        return [line for line in self.servers.job.stderr().splitlines() if needle in line]

    def assert_serves(self, n=500):
        """A real client job still works."""
        r = self.s.client("cli", 4, flags(n=n, read_phases=1, info_svr_uri=self.servers.uri))
        self.assertEqual(r.rc, 0, r)
        self.assertEqual(harness.result_lines(r.out), {"insert": 4 * n, "fstats": 4 * n}, r)

    def test_trickling_peers_are_dropped_within_the_frame_timeout(self):
        self.start("--frame_timeout=2")
        # Before its hello: the hello itself trickles.
        silent = self.open(authenticate=False)
        took = trickle(silent, frame(harness.MSG_HELLO, harness.read_secret()), 0.25, 8)
        self.assertIsNotNone(took, "a peer trickling its hello kept its connection")
        self.assertGreater(took, 1.8)
        self.assertLess(took, 4.0)
        # After its hello: a create trickles (complete after 10 s; dropped before).
        after = self.open()
        request = frame(MSG_CREATE, key_body(1, b"trickled") + STAT)
        took = trickle(after, request, 0.25, 8)
        self.assertIsNotNone(took, "a peer trickling a create kept its connection")
        self.assertGreater(took, 1.8)
        self.assertLess(took, 4.0)
        for needle in ("dropped connection: no hello within 2 s of connecting from 127.0.0.1:",
                       "dropped connection: frame not complete within 2 s of its first byte from 127.0.0.1:"):
            harness.wait_until(lambda needle=needle: self.log_lines(needle), 10, "the log line " + needle)
            self.assertEqual(len(self.log_lines(needle)), 1, self.servers.job.stderr())
        # A peer that is slow but never stalls for the timeout is not dropped: a frame in
        # two halves a second apart.
        slow = self.open()
        request = frame(harness.MSG_LSTAT, key_body(1, b"trickled"), seq=5)
        slow.sendall(request[:10])
        time.sleep(1)
        msg_type, seq, body = harness.call(slow, request[10:])
        self.assertEqual((msg_type, seq, body[0]), (MSG_STAT_REPLY, 5, harness.STATUS_NOT_FOUND))
        self.assert_serves()
        self.assertEqual(self.s.stop_servers(self.servers), 0, self.servers.job.stderr())

    def test_idle_connections_are_closed_after_the_idle_timeout(self):
        self.start("--frame_timeout=2", "--idle_timeout=3")
        idle, busy = self.open(), self.open()
        silent = self.open(authenticate=False)  # no hello at all: the frame timeout applies
        t0 = time.monotonic()
        closed = {}
        seq = 0
        while time.monotonic() - t0 < 6 and len(closed) < 2:
            seq += 1
            msg_type, _, _ = harness.call(busy, frame(MSG_LSTAT, key_body(1, b"x"), seq=seq))
            self.assertEqual(msg_type, MSG_STAT_REPLY)
            for name, sock in (("idle", idle), ("silent", silent)):
                if name not in closed and closed_by_server(sock):
                    closed[name] = time.monotonic() - t0
            time.sleep(0.25)
        self.assertIn("idle", closed, "an idle connection stayed open for 6 s")
        self.assertGreater(closed["idle"], 2.8)
        self.assertLess(closed["idle"], 4.5)
        self.assertIn("silent", closed, "a connection without a hello stayed open for 6 s")
        self.assertLess(closed["silent"], 3.5)
        self.assertFalse(closed_by_server(busy), "a connection in use was closed")
        needle = "closed idle connection: no request for 3 s from 127.0.0.1:"
        harness.wait_until(lambda: self.log_lines(needle), 10, "the log line " + needle)
        self.assertEqual(len(self.log_lines(needle)), 1, self.servers.job.stderr())
        self.assert_serves()  # clients in use for the whole job are never idle
        self.assertEqual(self.s.stop_servers(self.servers), 0, self.servers.job.stderr())

    def test_announced_frames_reserve_nothing(self):
        self.start("--frame_timeout=60")
        (pid,) = server_pids(self.servers)
        for _ in range(20):  # the server's first connections allocate its loops' bookkeeping
            self.open()
        time.sleep(0.3)
        before = rss_kib(pid)
        announce = struct.pack("<2sBBII", b"DM", harness.WIRE_VERSION, MSG_CREATE, 1 << 20, 1)
        # 200 connections that say hello, announce a 1 MiB create and send 3 KB of it...
        for _ in range(200):
            self.open().sendall(announce + bytes(3000))
        # ...and 200 that announce one before any hello: dropped on its header.
        for _ in range(200):
            self.open(authenticate=False).sendall(announce + bytes(3000))
        harness.wait_until(lambda: len(self.log_lines("first frame is not a hello")) == 200, 20,
                           "200 log lines of connections without a hello")
        time.sleep(0.5)
        grown = rss_kib(pid) - before
        # Before: every connection resized its buffer to the announced 1 MiB (over 200 MiB).
        self.assertLess(grown, 16 * 1024, "the server grew by %d KiB" % grown)
        self.assertEqual(sum(not closed_by_server(s) for s in self.socks), 220)  # the others wait on
        for sock in self.socks:
            sock.close()
        self.assert_serves()
        self.assertEqual(self.s.stop_servers(self.servers), 0, self.servers.job.stderr())

    def test_buffered_bytes_stay_within_the_budget(self):
        self.start("--conn_buffer_mb=4", "--frame_timeout=60")
        (pid,) = server_pids(self.servers)
        self.open()
        time.sleep(0.3)
        before = rss_kib(pid)
        # Eight connections each send 1,000,000 bytes of an ingest frame of 1 MiB: only four
        # such buffers fit in 4 MiB.
        announce = struct.pack("<2sBBII", b"DM", harness.WIRE_VERSION, MSG_INGEST, 1 << 20, 1)
        big = [self.open() for _ in range(8)]
        for sock in big:
            try:
                sock.sendall(announce + bytes(1000000))
            except (BrokenPipeError, ConnectionResetError):
                pass
        needle = "over its 4 MiB (--conn_buffer_mb) from 127.0.0.1:"
        harness.wait_until(lambda: len(self.log_lines(needle)) >= 4, 20, "4 connections dropped over the budget")
        time.sleep(0.5)
        kept = [s for s in big if not closed_by_server(s)]
        self.assertEqual(len(kept) + len(self.log_lines(needle)), 8, self.servers.job.stderr())
        self.assertLessEqual(len(kept), 4)
        grown = rss_kib(pid) - before
        self.assertLess(grown, 12 * 1024, "the server grew by %d KiB" % grown)
        # Closed connections give their bytes back: three more such frames fit again.
        for sock in kept:
            sock.close()
        time.sleep(0.3)
        dropped = len(self.log_lines(needle))
        again = [self.open() for _ in range(3)]
        for sock in again:
            sock.sendall(announce + bytes(1000000))
        time.sleep(0.5)
        self.assertEqual(len(self.log_lines(needle)), dropped, self.servers.job.stderr())
        self.assertFalse(any(closed_by_server(s) for s in again))
        for sock in again:
            sock.close()
        self.assert_serves()
        self.assertEqual(self.s.stop_servers(self.servers), 0, self.servers.job.stderr())


if __name__ == "__main__":
    unittest.main()
