# Who may talk to a server: only a peer that presents the job's secret (core/doc/formats.md,
# "Wire format"). A client without the secret file, or with another secret, fails with one
# line and changes nothing; a raw connection that starts with a request instead of a hello
# is dropped; a server refuses a secret file others may read; and a secret file of its own
# (DELTAMETA_SECRET_FILE) is made private, atomically, by the server.
import os
import stat
import unittest

import harness
from harness import MSG_CREATE, MSG_LSTAT, flags, frame, key_body

STAT = harness.encode_stat(7, 0o100644, 1000, 1000, 0, 1, 1)
N = 100  # files per client rank


class Secret(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)
        self.servers = self.s.start_servers("svr", 2, self.s.path("db"))
        self.ranks = harness.server_addresses(self.servers)
        r = self.s.client("fill", 4, flags(n=N, info_svr_uri=self.servers.uri))
        self.assertEqual(r.rc, 0, r)
        self.assertEqual(harness.count_entries(self.ranks), 4 * N)

    def log_lines(self, needle):
        return [line for line in self.servers.job.stderr().splitlines() if needle in line]

    def error_lines(self, r):
        return [line for line in r.err.splitlines() if line.strip()]

    def assert_untouched(self):
        self.assertEqual(harness.count_entries(self.ranks), 4 * N)
        self.assertTrue(self.servers.job.running())

    def test_a_client_without_the_secret_file_fails_with_one_line(self):
        missing = self.s.path("nowhere", "secret")
        r = self.s.client("cli", 4, flags(n=2 * N, info_svr_uri=self.servers.uri),  # new names too
                          env={"DELTAMETA_SECRET_FILE": missing})
        self.assertNotEqual(r.rc, 0, r)
        lines = self.error_lines(r)
        self.assertEqual(len(lines), 1, r)
        self.assertTrue(lines[0].startswith("deltameta_client: error: no secret file %s: " % missing), r)
        self.assertIn("DELTAMETA_SECRET_FILE", lines[0])
        self.assertFalse(os.path.exists(os.path.dirname(missing)))  # a client never makes one
        self.assertEqual(self.log_lines("connection"), [])  # it never connected
        self.assert_untouched()

    def test_a_client_with_another_secret_fails_with_one_line(self):
        other = self.s.path("other-secret")
        with open(other, "wb") as f:
            f.write(os.urandom(32))
        os.chmod(other, 0o600)
        for transport in ("auto", "tcp"):
            with self.subTest(transport=transport):
                before = len(self.log_lines("refused connection: wrong secret"))
                r = self.s.client("cli-" + transport, 4,
                                  flags(n=2 * N, rpc_transport=transport, info_svr_uri=self.servers.uri),
                                  env={"DELTAMETA_SECRET_FILE": other})
                self.assertNotEqual(r.rc, 0, r)
                lines = self.error_lines(r)
                self.assertEqual(len(lines), 1, r)
                self.assertEqual(lines[0], "deltameta_client: error: server at %s refused the secret in %s: the server "
                                           "runs as another user or with another DELTAMETA_SECRET_FILE"
                                           % (self.servers.uri, other), r)
                # Each rank's first connection (to the info endpoint) was refused and logged.
                self.assertEqual(len(self.log_lines("refused connection: wrong secret")) - before, 4,
                                 self.servers.job.stderr())
                self.assert_untouched()

    def test_a_connection_must_start_with_a_hello(self):
        create = frame(MSG_CREATE, key_body(1, b"intruder") + STAT)
        lstat = frame(MSG_LSTAT, key_body(1, b"f0.0"))
        for request in (create, lstat, create + create):
            for address in self.ranks:
                before = len(self.log_lines("first frame is not a hello"))
                with harness.connect(address, authenticate=False) as raw:
                    raw.sendall(request)
                    try:
                        self.assertEqual(raw.recv(4096), b"", "the server answered a request without a hello")
                    except ConnectionResetError:
                        pass
                harness.wait_until(lambda before=before: len(self.log_lines("first frame is not a hello")) > before, 10,
                                   "the server's log line")
                line = self.log_lines("first frame is not a hello")[-1]
                self.assertIn("dropped connection: first frame is not a hello", line)
                self.assertIn(" from 127.0.0.1:", line)  # names the peer
        # A hello with a wrong secret is answered so, then the connection closes.
        with harness.connect(self.ranks[0], authenticate=False) as raw:
            self.assertEqual(harness.hello(raw, os.urandom(32)), harness.STATUS_BAD_SECRET)
            try:
                raw.sendall(create)
                self.assertEqual(raw.recv(4096), b"")
            except (BrokenPipeError, ConnectionResetError):
                pass
        self.assert_untouched()
        self.assertEqual(self.s.stop_servers(self.servers), 0, self.servers.job.stderr())

    def test_secret_files_of_a_job_are_private(self):
        # The server makes a missing DELTAMETA_SECRET_FILE: 0600 in a new 0700 directory.
        own = self.s.path("job", "secret")
        srv = self.s.start_servers("own", 1, self.s.path("db-own"), env={"DELTAMETA_SECRET_FILE": own})
        self.assertEqual(stat.S_IMODE(os.stat(own).st_mode), 0o600)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.dirname(own)).st_mode), 0o700)
        self.assertEqual(os.path.getsize(own), 32)
        r = self.s.client("cli-own", 2, flags(n=N, read_phases=1, info_svr_uri=srv.uri),
                          env={"DELTAMETA_SECRET_FILE": own})
        self.assertEqual(r.rc, 0, r)
        r = self.s.client("cli-home", 2, flags(n=N, info_svr_uri=srv.uri))  # the secret of $HOME: another one
        self.assertNotEqual(r.rc, 0, r)
        self.assertIn("refused the secret in %s" % harness.secret_file(), r.err)
        self.assertEqual(self.s.stop_servers(srv), 0, srv.job.stderr())
        # A secret file group or others may read is refused, with the fix.
        os.chmod(own, 0o640)
        job = self.s.start("open", 1, "deltameta_server",
                           flags(db=self.s.path("db-open"), info_port=0, ready_file=self.s.path("open.ready")),
                           env={"DELTAMETA_SECRET_FILE": own})
        self.assertNotEqual(job.wait(30), 0)
        lines = [line for line in job.stderr().splitlines() if line.strip()]
        self.assertEqual(lines, ["deltameta_server: error: the secret file %s has mode 0640, so group or others may "
                                 "read or change it: chmod 600 %s" % (own, own)], job.stderr())
        self.assertFalse(os.path.exists(self.s.path("db-open", "r0")))  # nothing was left behind


if __name__ == "__main__":
    unittest.main()
