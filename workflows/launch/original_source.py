"""The source of the original DeltaFS prototype (the authors' deltafs-proto, the seed guide's
v2021.5), found and checked before it is built (build_original.py): a release archive (a
local .tar.gz or a URL) or a directory holding the source tree, wherever config key
`original.source` points, or with `auto` the archive in the upstream folder
($DELTAMETA_UPSTREAM, default ../shared/upstream beside the repository) when it is there,
else the release's public URL.

Whatever the source, its files are checked against one checksum, `original.sha256`: the
sha256 of the tree's listing, each regular file as "<path relative to the tree's top>
<sha256 of its bytes>" and each symbolic link as "<path> -> <target>", one line each in
sorted order. Unlike an archive's own checksum it does not depend on how the archive was
compressed, so the release archive, GitHub's download of the same commit and a checkout of
it (its .git folder aside) all give the same value. Nothing of the source is kept in this
repository: it is unpacked under results/original/ and built there."""
import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.request

VERSION = "2021.5"
COMMIT = "2e9984a9a1b2e157abcfefb7483ad68196a1b7f9"
ARCHIVE = f"deltafs-proto-{VERSION}.tar.gz"
URL = f"https://github.com/pdlfs/deltafs-proto/archive/{COMMIT}.tar.gz"
LICENCE = "BSD-3-Clause (the prototype's own licence file)"
DOWNLOAD_TIMEOUT_S = 120


class SourceError(Exception):
    """The source cannot be had or is not the pinned release; the message names the fix."""


def upstream_dir(repo):
    return os.environ.get("DELTAMETA_UPSTREAM") or os.path.join(repo, "..", "shared", "upstream")


def resolve(source, repo):
    """The source `original.source` names: `auto`, a URL, or a path (relative to `repo`)."""
    if source == "auto":
        local = os.path.join(upstream_dir(repo), ARCHIVE)
        return os.path.abspath(local) if os.path.isfile(local) else URL
    if "://" in source:
        return source
    if not source:
        raise SourceError("original.source is empty: give auto, the release's URL, an archive or a directory")
    return os.path.abspath(os.path.join(repo, source))


def tree_sha256(top):
    """The checksum of the tree below `top` (the module's comment says how it is made)."""
    lines = []
    for dirpath, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in files + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, top).replace(os.sep, "/")
            if os.path.islink(path):
                lines.append(f"{rel} -> {os.readlink(path)}")
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    lines.append(f"{rel} {hashlib.file_digest(f, 'sha256').hexdigest()}")
    return hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()


def fetch(url, dest_dir):
    """Downloads `url` into `dest_dir`; the path of the archive."""
    path = os.path.join(dest_dir, ARCHIVE)
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as r, open(path, "wb") as f:
            shutil.copyfileobj(r, f)
    except (OSError, ValueError) as e:
        raise SourceError(f"original.source {url}: cannot download it ({e}): give the release archive's path "
                          f"instead (original.source: PATH/{ARCHIVE})") from None
    return path


def inside(name):
    """Whether an archive member's path stays inside the folder it is unpacked into."""
    norm = os.path.normpath(name)
    return not os.path.isabs(norm) and norm != ".." and not norm.startswith(".." + os.sep)


def unpack(archive, dest_dir, origin):
    """Unpacks `archive` (tar.gz, one top folder) into `dest_dir`; the top folder's path."""
    try:
        with tarfile.open(archive) as tar:
            members = tar.getmembers()
            unsafe = [m.name for m in members if not inside(m.name) or m.isdev()
                      or (m.issym() and not inside(os.path.join(os.path.dirname(m.name), m.linkname)))
                      or (m.islnk() and not inside(m.linkname))]
            if unsafe:
                raise SourceError(f"original.source {origin}: the archive holds {unsafe[0]}, outside its folder or "
                                  f"a device: not a source release; download the release archive ({URL})")
            tar.extractall(dest_dir, members)
    except (OSError, tarfile.TarError, EOFError) as e:
        raise SourceError(f"original.source {origin}: not a readable .tar.gz ({e}): download the release archive "
                          f"again ({URL})") from None
    tops = os.listdir(dest_dir)
    if len(tops) != 1 or not os.path.isdir(os.path.join(dest_dir, tops[0])):
        raise SourceError(f"original.source {origin}: expected one top folder in the archive, found "
                          f"{len(tops)} entries: give the release archive ({URL})")
    return os.path.join(dest_dir, tops[0])


def checked_tree(source, expected, scratch):
    """The source tree of `source` (resolved), in `scratch` unless it is a directory, with its
    checksum verified against `expected`; (tree path, its checksum)."""
    if "://" not in source and not os.path.exists(source):
        raise SourceError(f"original.source {source}: no such file or directory: give the release archive "
                          f"({ARCHIVE}), a directory holding its source, or auto")
    if os.path.isdir(source):
        top = source
    else:
        archive = fetch(source, tempfile.mkdtemp(dir=scratch)) if "://" in source else source
        top = unpack(archive, tempfile.mkdtemp(dir=scratch), source)
    digest = tree_sha256(top)
    if digest != expected:
        raise SourceError(f"original.source {source}: its files' checksum is {digest}, not original.sha256 "
                          f"{expected}: it is not deltafs-proto {VERSION} (commit {COMMIT[:12]}) as released; "
                          "give that release, or set original.sha256 to build another on purpose")
    return top, digest
