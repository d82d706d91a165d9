//! Export and import of the whole memory as one JSON document, and switching to a new,
//! empty memory. Import never overwrites: the job worker fills a new database (the page
//! never holds the document) and the page switches to it, and a corrupt or foreign file is
//! refused with a clear message, changing nothing.

use super::{ctx, now, Ctx};
use crate::idb::IdbStore;
use crate::jobs;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

const ACTIVE: &str = "nocturne.memory";

/// The database name of the memory in use (remembered across visits).
pub fn active_memory() -> String {
    web_sys::window()
        .and_then(|w| w.local_storage().ok()?)
        .and_then(|s| s.get_item(ACTIVE).ok()?)
        .unwrap_or_else(|| super::DB_NAME.to_string())
}

fn remember(name: &str) {
    if let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok()?) {
        let _ = s.set_item(ACTIVE, name);
    }
}

async fn switch_to(c: Ctx, store: IdbStore) {
    remember(&store.name());
    c.memory.set(store.name());
    c.store.set_value(store);
    c.bump();
}

fn download(name: &str, text: &str) -> Result<(), crate::error::AppError> {
    let parts = js_sys::Array::of1(&text.into());
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/json");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).map_err(|_| "cannot make the file")?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "cannot make a download link")?;
    let a: web_sys::HtmlAnchorElement = document().create_element("a").map_err(|_| "no document")?.unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

#[component]
pub fn TransferPanel() -> impl IntoView {
    let c = ctx();
    let export = Action::new_local(move |_: &()| {
        let store = c.store.get_value();
        async move {
            let doc = store.export().await.map_err(|e| e.to_string())?;
            let name = format!("nocturne-memory-{}.json", now());
            download(&name, &doc.to_json())?;
            Ok::<String, String>(format!(
                "Exported {} facts, {} versions and {} mutations to {name}.",
                doc.items.len(),
                doc.versions.len(),
                doc.mutations.len()
            ))
        }
    });
    let import = Action::new_local(move |file: &web_sys::File| {
        let file = file.clone();
        async move {
            // Parsed and filled in the job worker: the page never holds the document.
            let name = format!("nocturne-{}", js_sys::Date::now() as u64);
            let given = jobs::Given { file: Some(&file), ..Default::default() };
            let facts = jobs::run(jobs::OpenExport { name: name.clone() }, given, &mut |_| {}).await?;
            let store = IdbStore::open(&name).await.map_err(|e| e.to_string())?;
            switch_to(c, store).await;
            Ok::<String, String>(format!(
                "Imported {facts} active facts into a new memory ({name}); the previous memory is kept."
            ))
        }
    });
    let fresh = Action::new_local(move |_: &()| async move {
        let name = format!("nocturne-{}", js_sys::Date::now() as u64);
        let store = IdbStore::open(&name).await.map_err(|e| e.to_string())?;
        switch_to(c, store).await;
        Ok::<String, String>(format!("Started an empty memory ({name}); the previous one is kept."))
    });
    let status = move || [export.value().get(), import.value().get(), fresh.value().get()].into_iter().flatten().last();
    view! {
        <h2>"Export and import"</h2>
        <fieldset>
            <legend>{move || format!("Memory in use: {}", c.memory.get())}</legend>
            <p class="hint">"An export holds every fact, version, mutation, the transcript and the policy — never your API key. A memory export imported opens as a new memory; the one in use is kept."</p>
            <div class="controls">
                <button data-testid="export" on:click=move |_| { export.dispatch(()); }>"Export memory"</button>
                // Named by what it imports: the chat panel has a second file input, for a chat history.
                <label class="file">"Memory export to import: " <input type="file" accept="application/json,.json" data-testid="import"
                    on:change=move |ev| {
                        let input: web_sys::HtmlInputElement = event_target(&ev);
                        if let Some(file) = input.files().and_then(|f| f.get(0)) {
                            import.dispatch_local(file);
                        }
                        input.set_value("");
                    } /></label>
                <button on:click=move |_| { fresh.dispatch(()); }>"Start an empty memory"</button>
            </div>
            <p data-testid="transfer-status">{move || status().map(|r| match r {
                Ok(m) => view! { <span class="ok">{m}</span> }.into_any(),
                Err(e) => view! { <span class="error" role="alert">{e}</span> }.into_any(),
            })}</p>
        </fieldset>
    }
}
