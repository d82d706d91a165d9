//! The gate case files for the Verify panel, fetched from the app's own origin
//! (`cases/index.json`, then each file) so they stay out of the wasm bundle; the service
//! worker precaches them, so Verify still works offline.

use crate::error::AppError;
use gloo_net::http::Request;

/// Every case file as (file name, JSON text), in the index's order.
pub async fn load() -> Result<Vec<(String, String)>, AppError> {
    let index = fetch("cases/index.json").await?;
    let names: Vec<String> = serde_json::from_str(&index)
        .map_err(|e| AppError::caused(format!("cases/index.json is not a list of names: {e}"), e))?;
    if names.is_empty() {
        return Err("cases/index.json lists no case files".into());
    }
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let text = fetch(&format!("cases/{name}")).await?;
        out.push((name, text));
    }
    Ok(out)
}

async fn fetch(path: &str) -> Result<String, AppError> {
    let fail = |why: String| format!("the gate case file {path} could not be loaded from this site ({why})");
    let resp = Request::get(path).send().await.map_err(|e| fail(e.to_string()))?;
    if !resp.ok() {
        return Err(fail(format!("HTTP {}", resp.status())).into());
    }
    Ok(resp.text().await.map_err(|e| fail(e.to_string()))?)
}
