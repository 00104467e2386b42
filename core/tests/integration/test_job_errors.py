# A failed job's own words in its one-line error (core/bench/mpijobs/job.py): the first
# "TOOL: error: ..." line the job wrote, found in a log that earlier jobs appended to as
# well; else its last line of output; else "no error output".
import os
import sys
import tempfile
import unittest

from mpijobs.job import Job


def python_job(log, code):
    """A Job running `code` in a Python of its own, its output appended to `log`."""
    job = Job("job", [sys.executable, "-c", code], log, own_session=False)
    job.wait(60)
    return job


class JobErrors(unittest.TestCase):
    def setUp(self):
        fd, self.path = tempfile.mkstemp(prefix="deltameta-job-errors-")
        os.close(fd)
        self.addCleanup(os.remove, self.path)

    def test_the_first_error_line_of_this_job_only(self):
        with open(self.path, "a") as log:
            python_job(log, "import sys; sys.stderr.write('deltameta_client: error: from an earlier job\\n')")
            log.write("$ the next job's command line\n")
            log.flush()
            job = python_job(log, "import sys\n"
                                  "print('started', flush=True)\n"
                                  "sys.stderr.write('deltameta_server: error: rank 1 cannot open r1\\n')\n"
                                  "sys.stderr.write('deltameta_server: error: rank 0 cannot open r0\\n')\n"
                                  "sys.stderr.write('mpiexec: job aborted\\n')\n")
        self.assertEqual(job.error_said(), "deltameta_server: error: rank 1 cannot open r1")

    def test_the_last_line_without_an_error_line(self):
        with open(self.path, "a") as log:
            job = python_job(log, "print('first'); print('Segmentation fault'); print()")
        self.assertEqual(job.error_said(), "Segmentation fault")

    def test_a_silent_job(self):
        with open(self.path, "a") as log:
            log.write("deltameta_server: error: written before the job started\n")
            log.flush()
            job = python_job(log, "pass")
        self.assertEqual(job.error_said(), "no error output")

    def test_its_own_error_file(self):
        err = self.path + ".err"
        self.addCleanup(os.remove, err)
        job = Job("job", [sys.executable, "-c", "import sys; sys.stderr.write('x: error: own file\\n')"],
                  self.path, err=err, own_session=False)
        job.wait(60)
        self.assertEqual(job.error_said(), "x: error: own file")


if __name__ == "__main__":
    unittest.main()
