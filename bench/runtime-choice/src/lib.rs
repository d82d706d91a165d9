//! The candle side of the runtime-choice benchmark (run.sh): SmolLM2 from a GGUF, run by
//! candle's quantized llama in wasm, timed for load, prompt and generation.

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use candle_transformers::models::quantized_llama::ModelWeights;
use wasm_bindgen::prelude::*;

fn now() -> f64 {
    js_sys::Date::now()
}

/// Loads a GGUF from `bytes`, decodes `n_prompt` prompt tokens in one batch, then
/// `n_gen` tokens one at a time (greedy); returns "loadMs promptMs genMs".
#[wasm_bindgen]
pub fn bench(bytes: Vec<u8>, n_prompt: usize, n_gen: usize) -> Result<String, JsValue> {
    let err = |e: candle_core::Error| JsValue::from_str(&e.to_string());
    let dev = Device::Cpu;
    let t0 = now();
    let mut cursor = std::io::Cursor::new(bytes);
    let content = gguf_file::Content::read(&mut cursor).map_err(err)?;
    let mut model = ModelWeights::from_gguf(content, &mut cursor, &dev).map_err(err)?;
    let t1 = now();
    let prompt: Vec<u32> = (0..n_prompt as u32).map(|i| 100 + (i * 37) % 5000).collect();
    let input = Tensor::new(prompt.as_slice(), &dev).map_err(err)?.unsqueeze(0).map_err(err)?;
    let logits = model.forward(&input, 0).map_err(err)?;
    let mut next = logits.squeeze(0).map_err(err)?.argmax(0).map_err(err)?.to_scalar::<u32>().map_err(err)?;
    let t2 = now();
    for i in 0..n_gen {
        let input = Tensor::new(&[next], &dev).map_err(err)?.unsqueeze(0).map_err(err)?;
        let logits = model.forward(&input, n_prompt + i).map_err(err)?;
        next = logits.squeeze(0).map_err(err)?.argmax(0).map_err(err)?.to_scalar::<u32>().map_err(err)?;
    }
    let t3 = now();
    Ok(format!("{} {} {}", t1 - t0, t2 - t1, t3 - t2))
}
