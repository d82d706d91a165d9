#!/usr/bin/env python3
"""Puts the glue of a wllama runtime built here into wllama's page module.

wllama does not load its emscripten glue (wllama.js) from a file: its module embeds it as
string constants (WLLAMA_SINGLE_THREAD_CODE, WLLAMA_MULTI_THREAD_CODE) and runs it in its
worker. A wasm built by another emscripten needs that emscripten's glue, so for each
variant built (BUILT/single-thread/wllama.js, BUILT/multi-thread/wllama.js) the constant's
string literal is replaced, exactly once, by the new glue; a variant not built keeps npm's
glue and npm's wasm, which match each other.

Two fixes make Debian's emscripten 3.1.6 glue fit wllama 2.3.7's worker code, each checked
to apply exactly once:
- wllama replaces MEMFS.stream_ops.mmap with a function of (stream, length, position,
  prot, flags), the signature of newer emscriptens; 3.1.6 still passes an `address` first,
  so the model's weights would be read from a wrong offset (every logit NaN).
- 3.1.6 starts pthreads from a separate wllama.worker.js through locateFile, which
  wllama's refuses, and each pthread then imports the glue from the URL or Blob it is
  given: wllama gives a Blob, and the page's CSP (script-src without blob:) forbids
  importing one. Both are files of the page's own origin instead, next to the wasm
  wllama was given (RUN_OPTIONS.pathConfig in its worker): multi-thread/wllama.worker.js,
  and multi-thread/wllama.js, the fixed glue, which this script writes as
  BUILT_DIR/multi-thread/wllama.glue.js (scripts/inpage_runtime.py serves it).

usage: wllama_glue.py NPM_INDEX_MIN_JS OUT_INDEX_JS BUILT_DIR
"""
import json
import os
import re
import sys

MMAP_FIXES = [
    ("mmap:function(stream,address,length,position,prot,flags){if(address!==0){throw new FS.ErrnoError(28)}",
     "mmap:function(stream,length,position,prot,flags){"),
    ("stream.stream_ops.mmap(stream,address,length,position,prot,flags)",
     "stream.stream_ops.mmap(stream,length,position,prot,flags)"),
]
WORKER = re.compile(r"locateFile\(\s*[\"']wllama\.worker\.js[\"']\s*\)")
MAIN_SCRIPT = re.compile(r"Module\[\s*[\"']mainScriptUrlOrBlob[\"']\s*\]\s*\|\|\s*_scriptDir")


def sibling(name):
    """A same-origin file next to the wasm wllama's worker was given (its URL is absolute)."""
    return 'new URL("%s",RUN_OPTIONS.pathConfig["wllama.wasm"]).href' % name


def literal(text, name):
    """The span of the one string literal assigned to `name`."""
    hits = list(re.finditer(r"\b%s\s*=\s*" % name, text))
    if len(hits) != 1:
        sys.exit(f"{name}: expected one definition in the module, found {len(hits)}")
    start = hits[0].end()
    quote = text[start]
    if quote not in "'\"`":
        sys.exit(f"{name}: not a string literal ({text[start:start + 20]!r})")
    at = start + 1
    while text[at] != quote:
        if quote == "`" and text[at:at + 2] == "${":
            sys.exit(f"{name}: a template literal with substitutions")
        at += 2 if text[at] == "\\" else 1
    return start, at + 1


def glue_of(variant_dir):
    glue = open(os.path.join(variant_dir, "wllama.js"), encoding="utf-8").read()
    for old, new in MMAP_FIXES:
        if glue.count(old) != 1:
            sys.exit(f"{variant_dir}/wllama.js: expected {old!r} once, found it {glue.count(old)} times")
        glue = glue.replace(old, new)
    if os.path.exists(os.path.join(variant_dir, "wllama.worker.js")):
        for pattern, name in ((WORKER, "wllama.worker.js"), (MAIN_SCRIPT, "wllama.js")):
            if len(pattern.findall(glue)) != 1:
                sys.exit(f"{variant_dir}/wllama.js: expected {pattern.pattern!r} once")
            glue = pattern.sub(lambda _: sibling(name), glue)
        with open(os.path.join(variant_dir, "wllama.glue.js"), "w", encoding="utf-8") as f:
            f.write(glue)
    if "var Module" not in glue:
        sys.exit(f"{variant_dir}/wllama.js: no `var Module` (wllama's worker renames it)")
    return glue


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    src, dst, built = sys.argv[1:]
    text = open(src, encoding="utf-8").read()
    replaced = 0
    for name, variant in (("WLLAMA_SINGLE_THREAD_CODE", "single-thread"), ("WLLAMA_MULTI_THREAD_CODE", "multi-thread")):
        directory = os.path.join(built, variant)
        if not os.path.exists(os.path.join(directory, "wllama.js")):
            continue
        start, end = literal(text, name)
        text = text[:start] + json.dumps(glue_of(directory)) + text[end:]
        replaced += 1
    if replaced == 0:
        sys.exit(f"no built variant under {built}")
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
