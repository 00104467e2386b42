# How jobs choose and end their MPI transports (mpi_session.h): a job on one host runs over
# shared memory alone, and a job over UCX's TCP transport (what ranks on several hosts use)
# ends without hanging, keeping its exit code and its results; servers for ranks on several
# hosts listen on their own host's address.
import os
import socket
import unittest

import harness
from harness import flags

N, RANKS = 2000, 4
WRITE_ENV = {"DELTAFS_Db_disable_compaction": 1, "DELTAFS_Db_compression": 1}
TCP = {"UCX_TLS": "tcp,self"}  # UCX 1.13 hung in MPI_Finalize in 2-5 of 5 such jobs before


class MpiTransports(unittest.TestCase):
    def setUp(self):
        self.s = harness.Session()
        self.addCleanup(self.s.close)
        self.addCleanup(os.environ.update, dict(os.environ))
        os.environ.pop("UCX_TLS", None)

    def write(self, name, env=None):
        origin = self.s.path(name)
        r = self.s.run(name, RANKS, "deltameta_client_store",
                       flags(db=origin, share_dir=1, n=N, read_phases=0, skip_fs_checks=1, fs_use_local=1),
                       dict(WRITE_ENV, **(env or {})), timeout=60)
        self.assertEqual(r.rc, 0, r)
        return origin, r

    def test_one_host_runs_on_shared_memory_and_records_every_rank_host(self):
        _, r = self.write("origin")
        placement = r.docs[0]["placement"]
        self.assertEqual(placement["ucx_tls"], "self,sm")
        self.assertEqual(placement["rank_hosts"], [socket.gethostname()] * RANKS)
        self.assertEqual(placement["hosts"], 1)

    def test_a_transport_list_the_user_chose_is_kept(self):
        _, r = self.write("origin", {"UCX_TLS": "sm,self"})
        self.assertEqual(r.docs[0]["placement"]["ucx_tls"], "sm,self")

    def test_jobs_over_tcp_end_without_hanging(self):
        origin, _ = self.write("origin", TCP)
        for i in range(4):
            r = self.s.compactor("compact%d" % i, RANKS, flags(src_dir=origin, dst_dir=self.s.path("dst%d" % i)),
                                 dict(TCP, DELTAFS_Db_compression=1), timeout=60)
            self.assertEqual(r.rc, 0, r)
            self.assertEqual(r.docs[0]["ops"], N * RANKS)
            self.assertEqual(r.docs[0]["placement"]["ucx_tls"], "tcp,self")

    def test_servers_listen_on_their_hosts_address_with_rpc_ip_host(self):
        srv = self.s.start_servers("svr", 2, self.s.path("svr"), flags(rpc_ip="host", skip_fs_checks=1))
        self.assertEqual(srv.host, socket.gethostbyname(socket.gethostname()))
        r = self.s.client("cli", 2, flags(share_dir=1, n=500, read_phases=1, info_svr_uri=srv.uri))
        self.assertEqual(r.rc, 0, r)
        self.assertEqual([a.rsplit(":", 1)[0] for a in r.docs[0]["server_addresses"]], [srv.host] * 2)
        self.assertEqual(self.s.stop_servers(srv), 0)

    def test_a_failing_job_over_tcp_keeps_its_exit_code(self):
        r = self.s.compactor("compact", RANKS, flags(src_dir=self.s.path("missing"), dst_dir=self.s.path("dst")),
                             TCP, timeout=60)
        self.assertNotEqual(r.rc, 0, r)
        self.assertIn("deltameta_compactor: error:", r.err)


if __name__ == "__main__":
    unittest.main()
