#!/usr/bin/env python3
"""Trunk post-build hook: tells the service worker this build's files.

Writes the hashed files Trunk produced (the app's JS, wasm, CSS and wasm-bindgen
snippets) into sw.js, so the first visit already caches everything the app needs to
start offline, and names the cache after them, so a new build replaces the old cache.
The modules fetched on first use (the import and sync workers', named without a hash) are not
precached, but their contents name the cache as well; the job worker's (also unhashed) is
precached, since every visit runs it.
"""
import hashlib
import json
import os
import re
import sys

stage = os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")
files = []
for root, _, names in os.walk(stage):
    for name in names:
        rel = os.path.relpath(os.path.join(root, name), stage).replace(os.sep, "/")
        if re.search(r"-[0-9a-f]{8,}(_bg)?\.(js|wasm|css)$", rel) or rel.startswith("snippets/"):
            files.append(rel)
files.sort()
if not any(f.endswith(".wasm") for f in files):
    sys.exit("precache: no hashed wasm file in %s (%s)" % (stage, sorted(os.listdir(stage))))
# The wasm modules fetched on first use (sw.js's ON_DEMAND) are not precached, but their
# contents name the cache too: they keep their names from build to build.
on_demand = sorted(
    f for f in os.listdir(stage) if re.fullmatch(r"nocturne-(import|sync-worker|jobs)(_bg|_loader)?\.(js|wasm)", f)
)
# The job worker runs every job on the memory (a visit's first estimate already starts it), so it is
# cached on install too, for a first visit to be enough to open the app offline.
files += [f for f in on_demand if f.startswith("nocturne-jobs")]
digests = [hashlib.sha256(open(os.path.join(stage, f), "rb").read()).hexdigest() for f in on_demand]
path = os.path.join(stage, "sw.js")
sw = open(path, encoding="utf-8").read()
name = "nocturne-" + hashlib.sha256("\n".join(files + digests).encode()).hexdigest()[:12]
sw, n_cache = re.subn(r"^const CACHE = '[^']*';", "const CACHE = '%s';" % name, sw, flags=re.M)
sw, n_list = re.subn(r"^const PRECACHE = \[\];", "const PRECACHE = %s;" % json.dumps(files), sw, flags=re.M)
if n_cache != 1 or n_list != 1:
    sys.exit("precache: sw.js lacks its CACHE or PRECACHE line")
open(path, "w", encoding="utf-8").write(sw)
print(f"precache: {len(files)} files, cache {name} (on demand: {', '.join(on_demand) or 'none'})")
