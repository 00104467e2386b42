"""Fixture of the Spack tests: one Spack (spack_helpers.Spack) for the whole test session, so
that the tests of one pytest process share its set-up and its install tree."""
import pytest

from spack_helpers import Spack


@pytest.fixture(scope="session")
def spack(tmp_path_factory):
    return Spack(tmp_path_factory.mktemp("spack"))
