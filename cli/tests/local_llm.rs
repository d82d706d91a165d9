//! `scripts/local-llm.sh`, which builds llama.cpp's server for the real-model checks: the
//! flags it chooses for a CPU that advertises AMX (which a hypervisor may refuse: the
//! server then dies loading the model), and the one line it prints when a build fails
//! its smoke request.

use std::path::PathBuf;
use std::process::Command;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/local-llm.sh")
}

/// The build flags the script picks for a CPU whose /proc/cpuinfo says `flags`.
fn flags_for(arch: &str, flags: &str) -> String {
    let dir = std::env::temp_dir().join(format!("nocturne-cpuinfo-{}-{arch}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let cpuinfo = dir.join("cpuinfo");
    std::fs::write(&cpuinfo, format!("processor\t: 0\nflags\t\t: {flags}\n\nprocessor\t: 1\nflags\t\t: {flags}\n"))
        .expect("the cpuinfo fixture");
    let out = Command::new("bash")
        .arg(script())
        .arg("flags")
        .env("LLM_CPUINFO", &cpuinfo)
        .env("LLM_ARCH", arch)
        .output()
        .expect("bash runs the script");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("flags are text").split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_cpu_that_advertises_amx_gets_every_other_instruction_set_and_no_amx() {
    let sapphire = "fpu sse4_2 avx avx2 bmi2 fma f16c avx_vnni avx512f avx512cd avx512vl avx512dq avx512bw \
                    avx512vbmi avx512_vnni avx512_bf16 amx_tile amx_int8 amx_bf16";
    let flags = flags_for("x86_64", sapphire);
    for on in ["GGML_AVX2=ON", "GGML_AVX512=ON", "GGML_AVX512_VNNI=ON", "GGML_AVX512_BF16=ON", "GGML_AVX_VNNI=ON"] {
        assert!(flags.contains(&format!("-D{on}")), "{on} missing: {flags}");
    }
    for off in ["GGML_NATIVE=OFF", "GGML_AMX_TILE=OFF", "GGML_AMX_INT8=OFF", "GGML_AMX_BF16=OFF"] {
        assert!(flags.contains(&format!("-D{off}")), "{off} missing: {flags}");
    }
    assert!(!flags.contains("AMX_TILE=ON") && !flags.contains("NATIVE=ON"), "{flags}");
}

#[test]
fn an_older_cpu_gets_only_what_it_lists() {
    let flags = flags_for("x86_64", "fpu sse4_2 avx avx2 fma f16c bmi2");
    assert!(flags.contains("-DGGML_AVX2=ON") && flags.contains("-DGGML_AVX512=OFF"), "{flags}");
    // AVX-512 needs all five of F, CD, VL, DQ and BW.
    let partial = flags_for("x86_64", "sse4_2 avx avx2 fma f16c avx512f avx512cd");
    assert!(partial.contains("-DGGML_AVX512=OFF"), "{partial}");
    assert!(
        flags_for("aarch64", "fp asimd").contains("-DGGML_NATIVE=ON"),
        "arm64: ggml probes each feature by running it"
    );
}

#[test]
fn a_server_that_dies_loading_the_model_is_named_in_one_line() {
    let dir = std::env::temp_dir().join(format!("nocturne-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fake = dir.join("llama-server");
    std::fs::write(&fake, "#!/bin/sh\necho 'load_tensors: loading model tensors'\nkill -SEGV $$\n").unwrap();
    Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    let out = Command::new("bash").arg(script()).arg("smoke").arg(&fake).env("LLM_HOME", &dir).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("died with SIGSEGV while loading the model"), "{err}");
    assert!(lines[0].contains("loading model tensors"), "its last words: {err}");
}
