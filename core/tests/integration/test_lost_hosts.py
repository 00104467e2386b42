# A failed job's explanation (core/bench/mpijobs/launcher.py): a host of the job whose ssh
# port no longer answers is named by its address and, where the address resolves back to a
# name (looked up while the job starts, since a lost host may leave the name service too,
# and for a bounded time, since a name service may not answer), by that name; hosts that
# answer, or a job on this host alone, add nothing.
import socket
import threading
import time
import unittest

import mpijobs.launcher as launcher


class LostHosts(unittest.TestCase):
    def setUp(self):
        launcher._NAMES.clear()

    def test_a_lost_address_is_named_by_the_name_it_had_when_the_job_started(self):
        # 127.0.0.1 resolves back to localhost here; no ssh server listens on loopback's
        # port 1, which stands for the lost host's ssh port.
        self.assertEqual(launcher.remember_host_names(["127.0.0.1"]), ["127.0.0.1"])
        self.assertEqual(launcher.host_name("127.0.0.1"), socket.gethostbyaddr("127.0.0.1")[0])
        self.assertEqual(launcher.lost_hosts(["127.0.0.1", "127.0.0.1"], port=1), ["127.0.0.1"])
        name = socket.gethostbyaddr("127.0.0.1")[0]
        self.assertEqual(launcher.failure_cause(["127.0.0.1"], port=1),
                         f" after losing host 127.0.0.1 ({name}) (it does not answer on the ssh port)")

    def test_a_name_or_an_address_without_one_is_shown_as_it_is(self):
        launcher.remember_host_names(["localhost", "192.0.2.1"])
        self.assertIsNone(launcher.host_name("localhost"))  # a name already
        self.assertIsNone(launcher.host_name("192.0.2.1"))  # TEST-NET-1: resolves to no name
        self.assertIsNone(launcher.host_name("127.0.0.1"))  # never looked up

    def test_a_name_service_that_does_not_answer_delays_no_job(self):
        hung = threading.Event()
        self.addCleanup(hung.set)

        def dropped(host):  # a resolver that drops queries: no answer until the test ends
            hung.wait(30)
            raise OSError(f"no answer for {host}")

        self.addCleanup(setattr, socket, "gethostbyaddr", socket.gethostbyaddr)
        socket.gethostbyaddr = dropped
        started = time.monotonic()
        self.assertEqual(launcher.remember_host_names(["127.0.0.1", "127.0.0.2"], timeout=0.5),
                         ["127.0.0.1", "127.0.0.2"])
        self.assertLess(time.monotonic() - started, 5)
        self.assertIsNone(launcher.host_name("127.0.0.1"))

    def test_hosts_that_answer_or_no_hosts_add_nothing(self):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        self.addCleanup(listener.close)
        self.assertEqual(launcher.lost_hosts(["127.0.0.1"], port=listener.getsockname()[1]), [])
        self.assertEqual(launcher.failure_cause([]), "")


if __name__ == "__main__":
    unittest.main()
