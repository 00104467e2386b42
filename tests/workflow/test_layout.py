"""The workflow's Python keeps the layout workflows/__init__.py describes: its wings import
the package's root and the wings listed before their own, never one listed after it, and
the root imports no wing; core/bench, beneath it, imports nothing of it; every rule's
script: is a shim in workflows/scripts/ named after its rule; the command-line programs are
those in workflows/bin/, each named in that docstring; the top-level README's map from each
design to its code names only paths that exist; and no Python file of the project edits
sys.path."""
import ast
import os
import re
import subprocess

from workflow_helpers import REPO

import workflows

PACKAGE = os.path.join(REPO, "workflows")
WINGS = re.findall(r"^  (\w+)/ ", workflows.__doc__, re.M)


def modules(folder):
    """(path, every workflows.* module it imports) of each Python file under `folder`."""
    for top, _, files in os.walk(folder):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(top, name)
                with open(path) as f:
                    tree = ast.parse(f.read(), path)
                names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
                names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
                yield path, [n for n in names if n.split(".")[0] == "workflows"]


def wing_of(module):
    """The wing a workflows.* module is in, or None for the package's root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else None


def test_the_package_docstring_lists_every_wing():
    folders = {d for d in os.listdir(PACKAGE) if os.path.isfile(os.path.join(PACKAGE, d, "__init__.py"))}
    assert sorted(WINGS) == sorted(folders)


def test_wings_import_only_the_root_and_the_wings_before_them():
    wrong = []
    for wing in WINGS:
        allowed = set(WINGS[:WINGS.index(wing) + 1]) | {None}
        for path, imported in modules(os.path.join(PACKAGE, wing)):
            wrong += [(os.path.relpath(path, REPO), m) for m in imported if wing_of(m) not in allowed]
    for name in os.listdir(PACKAGE):
        if name.endswith(".py"):
            with open(os.path.join(PACKAGE, name)) as f:
                wrong += [(name, line) for line in f if re.match(r"(from|import) workflows\.\w+\.", line)]
    assert not wrong, f"imports against the order of workflows/__init__.py: {wrong}"


def test_every_script_is_a_shim_named_after_its_rule():
    scripts = {}
    for name in os.listdir(os.path.join(PACKAGE, "rules")):
        with open(os.path.join(PACKAGE, "rules", name)) as f:
            text = f.read()
        for rule, body in re.findall(r"^rule (\w+):\n((?:    .*\n|\n)+)", text, re.M):
            m = re.search(r"^    script:\n\s+\"([^\"]+)\"", body, re.M)
            if m:
                scripts[rule] = os.path.normpath(os.path.join(PACKAGE, "rules", m.group(1)))
    assert scripts, "no rule has a script:"
    for rule, path in scripts.items():
        assert path == os.path.join(PACKAGE, "scripts", f"{rule}.py"), f"rule {rule}'s script is {path}"
        with open(path) as f:
            code = [line for line in f.read().split('"""')[-1].splitlines() if line.strip()]
        assert len(code) == 2 and code[0].startswith("from workflows.") and code[1].startswith("main(snakemake)"), \
            f"{path} is more than a shim: {code}"
    assert sorted(os.listdir(os.path.join(PACKAGE, "scripts"))) == sorted(f"{r}.py" for r in scripts)


def test_command_line_programs_are_in_bin_and_named_in_the_docstring():
    bin_dir = os.path.join(PACKAGE, "bin")
    programs = sorted(name for name in os.listdir(bin_dir) if name.endswith(".py"))
    unnamed = [p for p in programs if not re.search(rf"\b{re.escape(p)}\b", workflows.__doc__)]
    assert programs and not unnamed, f"programs in workflows/bin/ that workflows/__init__.py does not name: {unnamed}"
    entries = []
    for top, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(top, name)) as f:
                    if re.search(r"^if __name__ == .__main__.:", f.read(), re.M):
                        entries.append(os.path.relpath(os.path.join(top, name), PACKAGE))
    assert sorted(entries) == [os.path.join("bin", p) for p in programs]


def test_the_readmes_design_map_names_only_paths_that_exist():
    with open(os.path.join(REPO, "README.md")) as f:
        section = f.read().split("### Where each design lives\n", 1)[1].split("\n## ", 1)[0]
    paths = set(re.findall(r"`((?:core|workflows)/[^`\s]*)`", section))
    assert "workflows/rules/original.smk" in paths, "the map lacks the second implementation, the original"
    missing = sorted(p for p in paths if not os.path.exists(os.path.join(REPO, p)))
    assert not missing, f"README.md's map names paths that do not exist: {missing}"


def test_the_core_benchmarks_import_nothing_of_the_workflow():
    imported = [(os.path.relpath(path, REPO), names) for path, names in modules(os.path.join(REPO, "core", "bench"))
                if names]
    assert not imported, f"core/bench stands beneath the workflow: {imported}"


def test_no_python_file_edits_sys_path():
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True,
                           check=True).stdout.split()
    edit = re.compile(r"sys\.path\.(insert|append|extend)|sys\.path\s*[+]?=")
    edits = []
    for name in files:
        with open(os.path.join(REPO, name)) as f:
            edits += [f"{name}: {line.strip()}" for line in f if edit.search(line)]
    assert not edits, edits
