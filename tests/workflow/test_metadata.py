"""The project's licence and citation metadata: LICENSE, CITATION.cff and .zenodo.json parse,
say the same title, version, authors and licence, and their version is the core's
(core/CMakeLists.txt `project(deltameta VERSION x.y.z)`)."""
import json
import os
import re

import yaml

from workflow_helpers import REPO


def read(name):
    with open(os.path.join(REPO, name)) as f:
        return f.read()


def core_version():
    m = re.search(r"project\(\s*deltameta\s+VERSION\s+(\d+\.\d+\.\d+)", read(os.path.join("core", "CMakeLists.txt")))
    assert m, "core/CMakeLists.txt has no `project(deltameta VERSION x.y.z ...)` line"
    return m.group(1)


def cff():
    doc = yaml.safe_load(read("CITATION.cff"))
    assert isinstance(doc, dict), "CITATION.cff is not a YAML mapping"
    return doc


def zenodo():
    return json.loads(read(".zenodo.json"))


def test_citation_cff_has_what_cff_1_2_0_requires():
    doc = cff()
    assert doc["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "license"):
        assert doc.get(key), f"CITATION.cff: {key} is missing or empty"
    assert all(isinstance(a, dict) and (a.get("name") or a.get("family-names")) for a in doc["authors"])
    assert isinstance(doc["version"], str), "CITATION.cff: quote the version or write x.y.z so that it stays a string"


def test_zenodo_json_has_what_zenodo_requires():
    doc = zenodo()
    for key in ("title", "version", "creators", "license", "upload_type", "description"):
        assert doc.get(key), f".zenodo.json: {key} is missing or empty"
    assert all(c.get("name") for c in doc["creators"])


def test_citation_and_zenodo_agree():
    c, z = cff(), zenodo()
    assert c["title"] == z["title"], "CITATION.cff and .zenodo.json name different titles: make them equal"
    assert c["version"] == z["version"], "CITATION.cff and .zenodo.json name different versions: make them equal"
    assert [a.get("name") or f"{a['family-names']}, {a['given-names']}" for a in c["authors"]] == \
        [a["name"] for a in z["creators"]], "CITATION.cff's authors and .zenodo.json's creators differ"
    assert c["license"] == z["license"] == "BSD-3-Clause"


def test_version_is_the_core_version():
    version = core_version()
    assert cff()["version"] == version, (f"CITATION.cff says version {cff()['version']}, core/CMakeLists.txt "
                                         f"{version}: set CITATION.cff and .zenodo.json to the core's version")
    assert zenodo()["version"] == version, f".zenodo.json's version is not the core's ({version})"


def test_licence_is_bsd_3_clause_of_the_deltameta_authors():
    text = read("LICENSE")
    assert text.startswith("BSD 3-Clause License")
    assert re.search(r"Copyright \(c\) \d{4}, The deltameta authors", text)
    assert "Neither the name of the copyright holder" in text
