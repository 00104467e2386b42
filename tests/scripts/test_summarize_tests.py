"""scripts/summarize_tests.py, run as scripts/test.sh runs it, on JUnit reports written
here in the two shapes it reads (ctest's --output-junit, pytest's --junitxml): the counts
per part, each failed test by name, the unittest cases a passed ctest test skipped, a
missing or unreadable report counted as a failure, and the exit status."""
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "summarize_tests.py")

CTEST = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3" failures="1" disabled="0" skipped="0">
  <testcase name="unit.KeyTest.Order" classname="unit.KeyTest.Order" time="0.01" status="run">
    <system-out>[  PASSED  ] 1 test.</system-out>
  </testcase>
  <testcase name="integration.test_cpu_placement" classname="integration.test_cpu_placement" time="7.9"
      status="run">
    <system-out>test_pins (__main__.CpuPlacement.test_pins) ... ok
test_spreads (__main__.CpuPlacement.test_spreads) ... skipped 'needs two CPUs'
test_binds (__main__.CpuPlacement.test_binds)
A docstring's first line. ... skipped 'needs root'

Ran 3 tests in 7.659s

OK (skipped=2)
</system-out>
  </testcase>
  <testcase name="integration.test_failures" classname="integration.test_failures" time="12.5" status="fail">
    <failure message="Failed"/>
    <system-out>test_kill (__main__.Failures.test_kill) ... skipped 'needs a tty'
test_crash (__main__.Failures.test_crash) ... FAIL
</system-out>
  </testcase>
</testsuite>
"""

PYTEST = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="0" failures="0" skipped="1" tests="2" time="3.0">
  <testcase classname="tests.workflow.test_claims" name="test_holds" time="2.5"/>
  <testcase classname="tests.spack.test_spack_env" name="test_installs" time="0.1">
    <skipped type="pytest.skip" message="spack is not on PATH">skipped</skipped>
  </testcase>
</testsuite></testsuites>
"""


def summarize(*parts):
    return subprocess.run([sys.executable, SCRIPT, "--slowest", "2", *parts], capture_output=True, text=True,
                          timeout=60)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return f"{name.split('.')[0]}={path}"


def test_counts_failures_and_cases_skipped_inside_passed_tests(tmp_path):
    res = summarize(write(tmp_path, "ctest.xml", CTEST), write(tmp_path, "pytest.xml", PYTEST))
    assert res.returncode == 1, res
    lines = res.stdout.splitlines()
    assert lines[0] == "ctest: 2 passed, 1 failed, 0 skipped (unittest cases skipped inside passed tests: 2)"
    assert "  FAILED integration.test_failures" in lines
    assert "  skipped inside integration.test_cpu_placement: test_spreads: needs two CPUs" in lines
    assert "  skipped inside integration.test_cpu_placement: test_binds: needs root" in lines
    assert not any("needs a tty" in line for line in lines), "a failed test's inner skips are not listed"
    assert "pytest: 1 passed, 0 failed, 1 skipped" in lines
    assert lines[-4:] == ["slowest 2 tests:", "      12.5 s  ctest: integration.test_failures",
                          "       7.9 s  ctest: integration.test_cpu_placement",
                          "tests: 3 passed, 1 failed, 1 skipped"]


def test_all_passed_exits_zero(tmp_path):
    res = summarize(write(tmp_path, "pytest.xml", PYTEST))
    assert res.returncode == 0, res
    assert res.stdout.splitlines()[-1] == "tests: 1 passed, 0 failed, 1 skipped"


def test_a_missing_or_broken_report_is_a_failure(tmp_path):
    broken = write(tmp_path, "docker.xml", "<testsuite><testcase")
    res = summarize(write(tmp_path, "pytest.xml", PYTEST), broken, f"slurm={tmp_path / 'absent.xml'}")
    assert res.returncode == 1, res
    assert f"slurm: no report ({tmp_path / 'absent.xml'}): the part did not run to its end" in res.stdout
    assert "docker: unreadable report" in res.stdout
    assert res.stdout.splitlines()[-2:] == ["parts without a report: docker, slurm",
                                            "tests: 1 passed, 2 failed, 1 skipped"]


CTEST_TRACEBACK = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="1" failures="1" disabled="0" skipped="0">
  <testcase name="faults.test_server_crash" classname="faults.test_server_crash" time="41.8" status="fail">
    <failure message="Failed"/>
    <system-out>test_killed (__main__.ServerCrash.test_killed) ... ERROR
Traceback (most recent call last):
  File "harness.py", line 265, in recv_exact
    chunk = sock.recv(n - len(data))
TimeoutError: timed out

FAILED (errors=1)
</system-out>
  </testcase>
</testsuite>
"""

PYTEST_FAILURES = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="0" failures="2" skipped="0" tests="2" time="3.0">
  <testcase classname="tests.docker.test_cluster" name="test_node_loss" time="2.5">
    <failure message="AssertionError: the node did not come back&#10;assert False">the report</failure>
  </testcase>
  <testcase classname="tests.workflow.test_smoke_run" name="test_hostfile" time="0.5">
    <failure message="AssertionError: input: core/src/a.cc, core/src/b.cc">res = workflow.run()
E   AssertionError: input: core/src/a.cc, core/src/b.cc
E     Error in rule build_core:
E         log: results/logs/build_core.log</failure>
  </testcase>
  <testcase classname="tests.spack.test_spack_env" name="test_env" time="0.5">
    <error message="failed on setup with &quot;Failed: exit 3: spack env create -d env spack.yaml">
E   Failed: exit 3: spack env create -d env spack.yaml
E   ==> Warning: a warning first
E   ==> Error: [Errno 2] No such file or directory: 'index.json'</error>
  </testcase>
  <testcase classname="tests.docker.test_slurm_cluster" name="test_up" time="0.5">
    <error message="failed on setup with &quot;AssertionError: cluster.sh up --nodes 3 exited 2:">
E   AssertionError: cluster.sh up --nodes 3 exited 2:
E     Creating node_1 ... done
E     cluster: the pool deltameta did not answer in every placement group within 150 s</error>
  </testcase>
</testsuite></testsuites>
"""


def test_each_failed_test_says_why_in_one_line(tmp_path):
    res = summarize(write(tmp_path, "ctest.xml", CTEST_TRACEBACK), write(tmp_path, "pytest.xml", PYTEST_FAILURES))
    assert res.returncode == 1, res
    lines = res.stdout.splitlines()
    assert "  FAILED faults.test_server_crash: TimeoutError: timed out" in lines
    assert "  FAILED tests/docker/test_cluster.py::test_node_loss: AssertionError: the node did not come back" in lines
    assert ("  FAILED tests/workflow/test_smoke_run.py::test_hostfile: AssertionError: input: core/src/a.cc, "
            "core/src/b.cc ... Error in rule build_core:") in lines
    assert ("  FAILED tests/spack/test_spack_env.py::test_env: failed on setup with \"Failed: exit 3: spack env "
            "create -d env spack.yaml ... ==> Error: [Errno 2] No such file or directory: 'index.json'") in lines
    assert ("  FAILED tests/docker/test_slurm_cluster.py::test_up: failed on setup with \"AssertionError: cluster.sh "
            "up --nodes 3 exited 2: ... cluster: the pool deltameta did not answer in every placement group "
            "within 150 s") in lines
