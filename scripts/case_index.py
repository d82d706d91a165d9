#!/usr/bin/env python3
"""Trunk post-build hook: lists the gate case files Trunk copied into the build.

The app fetches `cases/index.json` and then each file for its Verify panel, so the case
files stay out of the wasm bundle; the service worker precaches them for offline use.
"""
import json
import os
import sys

stage = os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")
folder = os.path.join(stage, "cases")
names = sorted(n for n in os.listdir(folder) if n.endswith(".json") and n != "index.json")
if not names:
    sys.exit(f"case_index: no case files in {folder}")
with open(os.path.join(folder, "index.json"), "w", encoding="utf-8") as out:
    json.dump(names, out)
print(f"case_index: {len(names)} case files listed")
