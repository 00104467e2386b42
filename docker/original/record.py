"""The image's build (docker/Dockerfile): completes the image's image.json with the original
prototype's record (docker/original/build.sh's tools.json: version, commit, checksums,
licence, where its tools are) as key "original", null when the image holds no original, and
with "tree_dirty": whether the clone the image was built from held changes git does not have
(modified or untracked files, as `git status` lists them; docker/build-image.sh tells; null
where the build was not told), which provenance.json's git_dirty copies.
  python3 record.py IMAGE_JSON TOOLS_JSON true|false|unknown"""
import json
import os
import sys

image_json, tools_json, tree_dirty = sys.argv[1:]
with open(image_json) as f:
    info = json.load(f)
if os.path.exists(tools_json):
    with open(tools_json) as f:
        info["original"] = json.load(f)
else:
    info["original"] = None
info["tree_dirty"] = {"true": True, "false": False}.get(tree_dirty)
with open(image_json, "w") as f:
    json.dump(info, f)
    f.write("\n")
