#!/usr/bin/env python3
"""Trunk post-build hook: copies the in-page model's runtime into the build.

@wllama/wllama (MIT; llama.cpp compiled to WebAssembly) is fetched from npm by
scripts/setup.sh, pinned by version and checksum, into $NOCTURNE_WLLAMA. Its module, its
two wasm builds (single- and multi-threaded) and its licence go to inpage/wllama/, next to
inpage/runtime.js; the page loads them only when the in-page provider is chosen. Where
scripts/setup.sh has built the same llama.cpp with emscripten and wasm SIMD
($NOCTURNE_WLLAMA_BUILT), its module and wasm files go instead; inpage/wllama/build.js
names the runtime copied either way.

With NOCTURNE_SERVE_MODEL naming a .gguf file (scripts/serve.sh sets it when
scripts/local-llm.sh has fetched SmolLM2-135M), the build also offers that model from its
own origin: linked (not copied) into models/, listed in models/index.json. Without it the
build holds no model file.
"""
import json
import os
import shutil
import sys

stage = os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")
tools = os.environ.get("NOCTURNE_TOOLS") or os.path.expanduser("~/.cache/nocturne-tools")
src = os.environ.get("NOCTURNE_WLLAMA") or os.path.join(tools, "wllama-2.3.7", "package")
# The runtime scripts/setup.sh built with emscripten and wasm SIMD, when it built one: its
# own module (the glue of that emscripten inside), wasm files and a `runtime.json` naming it.
built = os.environ.get("NOCTURNE_WLLAMA_BUILT", os.path.join(tools, "wllama-built-2.3.7"))

files = {
    "index.js": os.path.join(src, "esm", "index.min.js"),
    "single-thread/wllama.wasm": os.path.join(src, "esm", "single-thread", "wllama.wasm"),
    "multi-thread/wllama.wasm": os.path.join(src, "esm", "multi-thread", "wllama.wasm"),
    "LICENCE": os.path.join(src, "LICENCE"),
}
NPM = "@wllama/wllama 2.3.7 from npm (generic CPU code, no wasm SIMD kernels)"
# `variants`: the thread variants built here (the others run npm's build, `npmDetail`).
runtime = {"runtime": "npm", "detail": NPM, "variants": [], "npmDetail": NPM}
if built and os.path.isfile(os.path.join(built, "runtime.json")):
    with open(os.path.join(built, "runtime.json")) as f:
        runtime = json.load(f)
    runtime["variants"] = [v for v in ("single", "multi") if os.path.isfile(os.path.join(built, v + "-thread", "wllama.wasm"))]
    runtime["npmDetail"] = NPM
    for name in ("index.js", "single-thread/wllama.wasm", "multi-thread/wllama.wasm"):
        if os.path.isfile(os.path.join(built, name)):
            files[name] = os.path.join(built, name)
    # A multi-thread build's pthreads load their worker script and the glue as files of
    # this origin (scripts/wllama_glue.py says why).
    if os.path.isfile(os.path.join(built, "multi-thread", "wllama.glue.js")):
        files["multi-thread/wllama.js"] = os.path.join(built, "multi-thread", "wllama.glue.js")
        files["multi-thread/wllama.worker.js"] = os.path.join(built, "multi-thread", "wllama.worker.js")
missing = [p for p in files.values() if not os.path.isfile(p)]
if missing:
    sys.exit("the in-page model's runtime is missing (%s); run scripts/setup.sh, which fetches "
             "@wllama/wllama from npm" % ", ".join(missing))
for name, path in files.items():
    out = os.path.join(stage, "inpage", "wllama", name)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    shutil.copyfile(path, out)
# build.js names the runtime copied (for Settings, the bench line and the e2e checks).
with open(os.path.join(stage, "inpage", "wllama", "build.js"), "w") as f:
    f.write("export const RUNTIME = %s;\n" % json.dumps(runtime))

model = os.environ.get("NOCTURNE_SERVE_MODEL")
if model:
    if not os.path.isfile(model) or not model.endswith(".gguf"):
        sys.exit("NOCTURNE_SERVE_MODEL=%s is not a .gguf file" % model)
    out = os.path.join(stage, "models", os.path.basename(model))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    try:
        os.link(model, out)
    except OSError:
        shutil.copyfile(model, out)
    listing = [{"name": os.path.basename(model), "size": os.path.getsize(model)}]
    with open(os.path.join(stage, "models", "index.json"), "w") as f:
        json.dump(listing, f)
