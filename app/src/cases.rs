//! The gate case files for the Verify panel, fetched from the app's own origin
//! (`cases/index.json`, then each file) so they stay out of the wasm bundle; the service
//! worker precaches them, so Verify still works offline.

use gloo_net::http::Request;

/// Every case file as (file name, JSON text), in the index's order.
pub async fn load() -> Result<Vec<(String, String)>, String> {
    let names: Vec<String> = fetch("cases/index.json").await.and_then(|text| {
        serde_json::from_str(&text).map_err(|e| format!("cases/index.json is not a list of names: {e}"))
    })?;
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

async fn fetch(path: &str) -> Result<String, String> {
    let fail = |why: String| format!("the gate case file {path} could not be loaded from this site ({why})");
    let resp = Request::get(path).send().await.map_err(|e| fail(e.to_string()))?;
    if !resp.ok() {
        return Err(fail(format!("HTTP {}", resp.status())));
    }
    resp.text().await.map_err(|e| fail(e.to_string()))
}
