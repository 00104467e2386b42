"""The image's build (docker/Dockerfile): adds the original prototype's record
(docker/original/build.sh's tools.json: version, commit, checksums, licence, where its tools
are) to the image's image.json as key "original", null when the image holds no original.
  python3 record.py IMAGE_JSON TOOLS_JSON"""
import json
import os
import sys

image_json, tools_json = sys.argv[1:]
with open(image_json) as f:
    info = json.load(f)
if os.path.exists(tools_json):
    with open(tools_json) as f:
        info["original"] = json.load(f)
else:
    info["original"] = None
with open(image_json, "w") as f:
    json.dump(info, f)
    f.write("\n")
