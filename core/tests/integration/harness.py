# Shared helpers for the integration tests: jobs of the tools under mpiexec in a temporary
# session, on the job control the benchmarks use too (core/bench/mpijobs), with a failed wait
# failing the test; output parsing; and the wire format, to talk to servers directly.
import hashlib
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

import mpijobs
from mpijobs import flags

BIN = os.environ.get("DELTAMETA_BIN", "")
MPIEXEC = os.environ.get("MPIEXEC") or shutil.which("mpiexec") or ""
if not os.path.isfile(os.path.join(BIN, "deltameta_server")) or not MPIEXEC:
    sys.exit("set DELTAMETA_BIN to the directory of the built tools and MPIEXEC to mpiexec")
LAUNCHER = mpijobs.Launcher(BIN, MPIEXEC)

TAG_VAR = "DELTAMETA_TEST_TAG"  # every process a test starts carries this, so leftovers can be found


def wait_until(predicate, timeout, what, interval=0.02):
    """Polls predicate() until it returns something truthy; fails after timeout seconds (what: text or callable)."""
    value = mpijobs.wait_until(predicate, timeout, interval)
    if not value:
        what = what() if callable(what) else what
        raise AssertionError("timed out after %.1f s waiting for %s" % (timeout, what))
    return value


def busy_factor(cap=4.0):
    """How many times longer than on an idle machine a job may take now: the 1-minute load
    average per CPU, at least 1 and at most `cap`. A bound on how soon something happens is
    stretched by it, so that a busy machine slows a test down without failing it, while a
    delay of another order (one timeout per call instead of one in all) still fails it."""
    return min(max(os.getloadavg()[0] / (os.cpu_count() or 1), 1.0), cap)


def tagged_pids(tag):
    return mpijobs.tagged(TAG_VAR, tag)


class Result:
    def __init__(self, rc, out, err, docs, elapsed):
        self.rc, self.out, self.err, self.docs, self.elapsed = rc, out, err, docs, elapsed

    def __repr__(self):
        return "rc=%s after %.1f s\n--- stdout\n%s--- stderr\n%s" % (self.rc, self.elapsed, self.out, self.err)


class Job(mpijobs.Job):
    """One mpiexec job in its own session, stdout/stderr captured to files, processes tagged."""

    def __init__(self, session, name, np, tool, args, env, mpi_args=(), wrapper=()):
        self.tag = "%s.%s" % (session.tag, name)
        full_env = dict(os.environ, **{TAG_VAR: self.tag})
        full_env.update({k: str(v) for k, v in (env or {}).items()})
        super().__init__(name, LAUNCHER.command(np, tool, args, mpi_args=mpi_args, wrapper=wrapper),
                         session.path(name + ".out"), session.path(name + ".err"), env=full_env)

    def wait(self, timeout):
        """Exit code; on timeout the job is killed and the test fails."""
        rc = super().wait(timeout)
        if rc is None:
            self.kill()
            raise AssertionError("%s did not finish within %s s: %s\n%s" %
                                 (self.name, timeout, " ".join(self.argv), self.stderr()))
        return rc

    def terminate(self, timeout=30):
        """SIGTERM to the mpiexec process group; returns the exit code."""
        self.signal(signal.SIGTERM, group=True)
        return self.wait(timeout)

    def kill(self):
        """SIGKILL to the mpiexec group and to every process of the job (mpiexec puts ranks in their own sessions)."""
        super().kill(also=tagged_pids(self.tag))

    def leftovers(self):
        return tagged_pids(self.tag)

    def rank_threads(self, program):
        """{pid: sorted thread names} of the job's ranks running `program` (as /proc's comm shows it)."""
        return mpijobs.rank_threads(self.leftovers(), program)

    def wait_gone(self, timeout=10):
        """Fails unless no process of this job is left alive within timeout seconds."""
        wait_until(lambda: not self.leftovers(), timeout,
                   lambda: "the processes of %s to exit (left: %s)" % (self.name, self.leftovers()))

    def result(self, rc, json_path=None):
        docs = mpijobs.read_json_lines(json_path) if json_path and os.path.exists(json_path) else []
        return Result(rc, self.stdout(), self.stderr(), docs, time.monotonic() - self.started)


class Servers:
    def __init__(self, job, uri, ready_file):
        self.job, self.uri, self.ready_file = job, uri, ready_file
        self.host, self.port = uri[len("tcp://"):].rsplit(":", 1)
        self.port = int(self.port)


class Session:
    """A temporary directory plus every job started in it; close() kills whatever is left and removes the directory."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="deltameta-it-", dir="/tmp")
        self.tag = os.path.basename(self.tmp)
        self.jobs = []

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def run_script(self, name, cmd, out, timeout=300):
        """Runs the command line `cmd` (runs.py's) with this session's tag plus `name`: (exit
        code, stderr, the JSON documents it wrote to `out`), once no process it started is left."""
        tag = "%s.%s" % (self.tag, name)
        r = subprocess.run(cmd, env=dict(os.environ, **{TAG_VAR: tag}), capture_output=True, text=True,
                           timeout=timeout)
        wait_until(lambda: not tagged_pids(tag), 10, "every process of %s to exit" % name)
        return r.returncode, r.stderr, mpijobs.read_json_lines(out) if os.path.exists(out) else []

    def start(self, name, np, tool, args, env=None, mpi_args=(), wrapper=()):
        """Starts `tool` under mpiexec; each rank runs `wrapper` + tool (e.g. valgrind) if given."""
        job = Job(self, "%02d-%s" % (len(self.jobs), name), np, tool, args, env, mpi_args, wrapper)
        self.jobs.append(job)
        return job

    def run(self, name, np, tool, args, env=None, timeout=60, json=True):
        """Runs a job to completion; client and compactor jobs get --json=<tmp>/<job>.json."""
        json_path = None
        if json:
            json_path = self.path("%02d-%s.json" % (len(self.jobs), name))
            args = list(args) + ["--json=" + json_path]
        job = self.start(name, np, tool, args, env)
        rc = job.wait(timeout)
        job.wait_gone()
        return job.result(rc, json_path)

    def client(self, name, np, args, env=None, timeout=60):
        return self.run(name, np, "deltameta_client", args, env, timeout)

    def compactor(self, name, np, args, env=None, timeout=60):
        return self.run(name, np, "deltameta_compactor", args, env, timeout)

    def start_servers(self, name, np, db, args=(), env=None, timeout=30, wrapper=()):
        """Starts a server job on any free info port and waits for its ready file."""
        ready = self.path(name + ".ready")
        job = self.start(name, np, "deltameta_server",
                         flags(db=db, info_port=0, ready_file=ready) + list(args), env, wrapper=wrapper)

        def ready_uri():
            if not job.running():
                raise AssertionError("%s exited with %s before it was ready:\n%s" %
                                     (name, job.proc.returncode, job.stderr()))
            return mpijobs.published_uri(ready)

        uri = wait_until(ready_uri, timeout, "%s to write its ready file" % name)
        return Servers(job, uri, ready)

    def stop_servers(self, servers, timeout=30):
        """SIGTERM; returns the exit code once mpiexec and every rank are gone."""
        rc = servers.job.terminate(timeout)
        servers.job.wait_gone()
        return rc

    def close(self):
        for job in self.jobs:
            if job.running() or job.leftovers():
                job.kill()
        mpijobs.kill(tagged_pids(self.tag))
        try:
            wait_until(lambda: not tagged_pids(self.tag), 10,
                       lambda: "the killed processes to exit (left: %s)" % tagged_pids(self.tag))
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


RESULT_LINE = re.compile(r"^==(\w+)\s*: +[0-9.]+ micros/op, +[0-9.]+ Mop/s, +[0-9.]+ s, +(\d+) ops$", re.M)


def result_lines(stdout):
    """{'insert': ops, ...} from the seed guide's '==insert    :  ... ops' lines."""
    return {phase: int(ops) for phase, ops in RESULT_LINE.findall(stdout)}


def snapshot(root):
    """{relative path: (size, sha256)} of every file under root."""
    snap = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            with open(p, "rb") as f:
                data = f.read()
            snap[os.path.relpath(p, root)] = (len(data), hashlib.sha256(data).hexdigest())
    return snap


def refused_port(test):
    """A TCP port of 127.0.0.1 that refuses connections until `test` ends: bound, never
    listening, closed by the test's cleanup. A port merely found free (bound, then closed)
    is one the kernel may give the next server of another test that asks for any port, and
    a client sent there to fail would then talk to that server (the likely way a test's
    namespace once held 2,000 files more than its own job wrote)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    test.addCleanup(s.close)
    return s.getsockname()[1]


# --- wire format (core/src/format/wire.h) ---
MSG_CREATE, MSG_LSTAT, MSG_INGEST, MSG_INFO, MSG_STATS, MSG_HELLO = 1, 2, 3, 4, 5, 7
MSG_STAT_REPLY, MSG_INFO_REPLY, MSG_STATS_REPLY, MSG_HELLO_REPLY = 0x81, 0x84, 0x85, 0x87
STATUS_OK, STATUS_NOT_FOUND, STATUS_READ_ONLY, STATUS_WRONG_SERVER, STATUS_BAD_SECRET = 0, 2, 3, 5, 8
WIRE_VERSION, STAT_VERSION = 5, 2
STAT_FIELDS = ("ino", "mode", "uid", "gid", "size", "mtime_us", "ctime_delta")


def varint(v):
    out = b""
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80])
        v >>= 7
    return out + bytes([v])


def encode_stat(ino, mode, uid, gid, size, mtime_us, ctime_us):
    """An encoded stat (core/include/deltameta/stat_codec.h)."""
    delta = (ctime_us - mtime_us) & (2**64 - 1)
    zigzag = ((delta << 1) ^ (0xFFFFFFFFFFFFFFFF if delta >> 63 else 0)) & (2**64 - 1)
    return bytes([STAT_VERSION]) + b"".join(varint(v) for v in (ino, mode, uid, gid, size, mtime_us, zigzag))


def decode_stat(data):
    """(fields, bytes used) of the encoded stat (core/include/deltameta/stat_codec.h) at the
    start of `data`: a version byte, then one varint per field."""
    if not data or data[0] != STAT_VERSION:
        raise ValueError("not a stat of version %d: %r" % (STAT_VERSION, data[:1]))
    fields, pos = {}, 1
    for name in STAT_FIELDS:
        value, shift = 0, 0
        while True:
            byte = data[pos]
            value |= (byte & 0x7F) << shift
            pos, shift = pos + 1, shift + 7
            if byte < 0x80:
                break
        fields[name] = value
    return fields, pos


def frame(msg_type, body=b"", seq=1, magic=b"DM", version=WIRE_VERSION, length=None):
    return magic + struct.pack("<BBII", version, msg_type, len(body) if length is None else length, seq) + body


def key_body(dir_id, name):
    """u64 directory id + u16-length name: an Lstat body, and the start of a Create body."""
    return struct.pack("<QH", dir_id, len(name)) + name


def recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("connection closed after %d of %d bytes" % (len(data), n))
        data += chunk
    return data


def call(sock, request):
    """Sends one frame, returns (type, seq, body) of the reply."""
    sock.sendall(request)
    _, _, msg_type, length, seq = struct.unpack("<2sBBII", recv_exact(sock, 12))
    return msg_type, seq, recv_exact(sock, length)


def secret_file():
    """The job's secret file (core/src/rpc/secret.h), as the tools find it."""
    return os.environ.get("DELTAMETA_SECRET_FILE") or os.path.join(os.path.expanduser("~"), ".deltameta", "secret")


def read_secret():
    with open(secret_file(), "rb") as f:
        return f.read()


def hello(sock, secret=None):
    """Presents the secret (default: the job's) in a hello frame; returns the reply's status."""
    msg_type, _, body = call(sock, frame(MSG_HELLO, read_secret() if secret is None else secret))
    assert msg_type == MSG_HELLO_REPLY and len(body) == 1, (msg_type, body)
    return body[0]


def connect(address, timeout=5, authenticate=True):
    """A socket to a server rank, which has presented the job's secret unless authenticate=False."""
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=timeout)
    if authenticate:
        try:
            status = hello(sock)
        except BaseException:
            sock.close()
            raise
        assert status == STATUS_OK, "the server refused the secret in %s" % secret_file()
    return sock


def server_addresses(servers):
    """The rank addresses the info endpoint reports, one per rank and port."""
    with connect("%s:%d" % (servers.host, servers.port)) as s:
        msg_type, _, body = call(s, frame(MSG_INFO))
    assert msg_type == MSG_INFO_REPLY, msg_type
    _, count = struct.unpack_from("<II", body)
    pos, addresses = 8, []
    for _ in range(count):
        (n,) = struct.unpack_from("<H", body, pos)
        addresses.append(body[pos + 2:pos + 2 + n].decode())
        pos += 2 + n
    return addresses


def count_entries(addresses):
    """Total entries over the given server ranks (Stats request with count_entries=1). The
    server counts by walking its store, beside the creates it is serving: on a busy machine,
    hundreds of thousands of entries took longer than connect()'s 5 s, hence 60 s a rank."""
    total = 0
    for address in addresses:
        with connect(address, timeout=60) as s:
            msg_type, _, body = call(s, frame(MSG_STATS, b"\x01"))
        assert msg_type == MSG_STATS_REPLY, msg_type
        _, entries, _, status = struct.unpack("<QQBB", body)
        assert status == STATUS_OK, "server %s could not count its entries (status %d)" % (address, status)
        total += entries
    return total
