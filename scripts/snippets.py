#!/usr/bin/env python3
"""Called by the post-build hook `csp.py`, before it reads index.html: the wasm-bindgen snippets in the build are the app's own files,
and every `integrity` digest in index.html is the digest of the file it names.

Trunk builds the page and its three worker modules in parallel from one crate, and each
pipeline's wasm-bindgen writes the crate's snippets (`app/js/inpage.js`) to one shared
path in the target directory. A pipeline may read a snippet while another rewrites it:
one CI build hashed it empty (`sha384-OLBgp1…`, the digest of nothing), the browser then
refused the module, and the page stayed blank. This hook copies each snippet from its
source where the build's copy differs, then sets each digest from the file as built, and
says what it changed. Trunk runs the hooks of one stage at once, so this is no hook of its
own: two hooks writing index.html together lose one's change.
"""
import base64
import hashlib
import os
import re
import sys


def repair(stage):
    """Makes the snippets in `stage` their sources and every digest its file's."""
    crate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "app")
    fixed = []

    # snippets/<crate>-<hash>/<path inside the crate>
    root = os.path.join(stage, "snippets")
    for dirpath, _, names in os.walk(root):
        for name in names:
            built = os.path.join(dirpath, name)
            inner = os.path.relpath(built, root).replace(os.sep, "/").split("/", 1)
            if len(inner) < 2 or not inner[0].startswith("nocturne-app-"):
                continue
            source = os.path.join(crate, inner[1])
            if not os.path.isfile(source):
                sys.exit(f"snippets: {built} has no source at {source}")
            want = open(source, "rb").read()
            if open(built, "rb").read() != want:
                open(built, "wb").write(want)
                fixed.append(f"copied {inner[1]} again")

    index = os.path.join(stage, "index.html")
    html = open(index, encoding="utf-8").read()

    def digest(match):
        tag = match.group(0)
        href = re.search(r'(?:href|src)="/?([^"]+)"', tag)
        found = re.search(r'integrity="(sha384|sha256|sha512)-([^"]+)"', tag)
        if not href or not found or not os.path.isfile(os.path.join(stage, href.group(1))):
            return tag
        algo, old = found.groups()
        data = open(os.path.join(stage, href.group(1)), "rb").read()
        new = base64.b64encode(hashlib.new(algo, data).digest()).decode()
        if new == old:
            return tag
        fixed.append(f"digest of {href.group(1)} set to the file's ({algo}-{new[:12]}…, was {old[:12]}…)")
        return tag.replace(f"{algo}-{old}", f"{algo}-{new}")

    html = re.sub(r"<(?:link|script)\b[^>]*\bintegrity=\"[^\"]*\"[^>]*>", digest, html)
    open(index, "w", encoding="utf-8").write(html)
    print("snippets: " + ("; ".join(fixed) if fixed else "every snippet and digest as built"))


if __name__ == "__main__":
    repair(os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist"))
