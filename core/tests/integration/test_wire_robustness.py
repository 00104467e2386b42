# Wire robustness: each malformed frame drops only its own connection and logs one line; others keep working.
import socket
import struct
import unittest

import harness
from harness import MSG_CREATE, MSG_INFO, MSG_LSTAT, MSG_STAT_REPLY, flags, frame, key_body

GOOD_NAME = b"f0.0"  # rank 0's first file in the shared directory (id 1): ino 1
BAD_STAT = bytes([9]) + bytes(7)  # stat format version 9
CASES = [  # (what, bytes sent, half-close afterwards, text of the server's log line)
    ("garbage", bytes(range(160, 200)), False, "bad magic"),
    ("bad magic", frame(MSG_LSTAT, key_body(1, GOOD_NAME), magic=b"XY"), False, "bad magic"),
    ("old version", frame(MSG_LSTAT, key_body(1, GOOD_NAME), version=1), False, "unsupported wire version"),
    ("unknown type", frame(0x42, b"\x00" * 8), False, "unknown message type"),
    ("2 MiB body", frame(MSG_LSTAT, length=2 << 20), False, "frame body over the 1 MiB limit"),
    ("truncated frame", frame(MSG_LSTAT, key_body(1, GOOD_NAME))[:17], True, "closed in the middle of a frame"),
    ("name beyond body", frame(MSG_LSTAT, struct.pack("<QH", 1, 200) + GOOD_NAME), False, "malformed request body"),
    ("empty name", frame(MSG_LSTAT, key_body(1, b"")), False, "malformed request body"),
    ("trailing bytes", frame(MSG_LSTAT, key_body(1, GOOD_NAME) + b"x"), False, "malformed request body"),
    ("bad stat", frame(MSG_CREATE, struct.pack("<QH", 1, 4) + b"zzzz" + BAD_STAT), False, "malformed request body"),
    ("info with a body", frame(MSG_INFO, b"x"), False, "malformed request body"),
    ("reply as request", frame(MSG_STAT_REPLY, bytes(9)), False, "malformed request body"),
]


class WireRobustness(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)
        self.servers = self.s.start_servers("svr", 2, self.s.path("db"))
        self.ranks = harness.server_addresses(self.servers)
        self.assertEqual(len(self.ranks), 2)
        self.seq = 100

    def log_lines(self):
        return self.servers.job.stderr().splitlines()

    def lstat_everywhere(self, conns):
        """Sends a valid Lstat of GOOD_NAME on each connection; returns the reply bodies."""
        bodies = []
        for c in conns:
            self.seq += 1
            msg_type, seq, body = harness.call(c, frame(MSG_LSTAT, key_body(1, GOOD_NAME), seq=self.seq))
            self.assertEqual((msg_type, seq), (MSG_STAT_REPLY, self.seq))
            self.assertEqual(1 + harness.decode_stat(body[1:])[1], len(body), body)  # status + one stat
            bodies.append(body)
        return bodies

    def assert_dropped(self, sock):
        try:
            self.assertEqual(sock.recv(4096), b"", "the server answered a malformed frame")
        except ConnectionResetError:
            pass
        except socket.timeout:
            self.fail("the server kept the connection open")

    def test_malformed_frames(self):
        good = [harness.connect(a) for a in self.ranks]
        for c in good:
            self.addCleanup(c.close)
        statuses = sorted(b[0] for b in self.lstat_everywhere(good))
        self.assertEqual(statuses, [harness.STATUS_NOT_FOUND, harness.STATUS_WRONG_SERVER])

        targets = self.ranks + ["%s:%d" % (self.servers.host, self.servers.port)]
        for i, (what, data, half_close, needle) in enumerate(CASES):
            with self.subTest(case=what):
                target = targets[i % len(targets)]
                before = len(self.log_lines())
                with harness.connect(target) as bad:
                    bad.sendall(data)
                    if half_close:
                        bad.shutdown(socket.SHUT_WR)
                    self.assert_dropped(bad)
                harness.wait_until(lambda before=before: len(self.log_lines()) > before, 10,
                                   "the server's log line for " + what)
                self.lstat_everywhere(good)
                new = self.log_lines()[before:]
                self.assertEqual(len(new), 1, new)
                rank = 1 if target == self.ranks[1] else 0
                self.assertIn("deltameta_server[r%d]: " % rank, new[0])
                self.assertIn(needle, new[0])
        self.assertTrue(self.servers.job.running())

        r = self.s.client("cli", 4, flags(n=2000, read_phases=1, info_svr_uri=self.servers.uri))
        self.assertEqual(r.rc, 0, r)
        self.assertEqual(harness.result_lines(r.out), {"insert": 8000, "fstats": 8000}, r)
        bodies = sorted(self.lstat_everywhere(good))
        self.assertEqual([b[0] for b in bodies], [harness.STATUS_OK, harness.STATUS_WRONG_SERVER])
        self.assertEqual(harness.decode_stat(bodies[0][1:])[0]["ino"], 1)
        self.assertEqual(len(self.log_lines()), len(CASES), self.log_lines())
        self.assertEqual(self.s.stop_servers(self.servers), 0, self.servers.job.stderr())

    def test_split_and_pipelined_frames(self):
        request = frame(MSG_LSTAT, key_body(1, GOOD_NAME), seq=7)
        with harness.connect(self.ranks[0]) as c:
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for byte in request[:-1]:
                c.sendall(bytes([byte]))
            msg_type, seq, _ = harness.call(c, request[-1:])
            self.assertEqual((msg_type, seq), (MSG_STAT_REPLY, 7))
            c.sendall(b"".join(frame(MSG_LSTAT, key_body(1, GOOD_NAME), seq=s) for s in range(8, 40)))
            for s in range(8, 40):
                header = struct.unpack("<2sBBII", harness.recv_exact(c, 12))
                self.assertEqual((header[2], header[4]), (MSG_STAT_REPLY, s))
                body = harness.recv_exact(c, header[3])
                self.assertEqual(1 + harness.decode_stat(body[1:])[1], len(body), body)
        self.assertEqual(self.log_lines(), [])
        self.assertEqual(self.s.stop_servers(self.servers), 0, self.servers.job.stderr())


if __name__ == "__main__":
    unittest.main()
