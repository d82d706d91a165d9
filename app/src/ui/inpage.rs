//! Settings for the model run in this page: pick or drop a GGUF file, or keep one the site
//! offers; see and remove what is kept; context size and threads.

use super::ctx;
use leptos::prelude::*;

/// The in-page model: pick or drop a GGUF file (kept in this browser), see what is kept,
/// remove it, and set context size and threads.
#[component]
pub fn InPageModel() -> impl IntoView {
    let c = ctx();
    let s = c.settings;
    let changed = RwSignal::new(0u32);
    // Keeping the file (the fraction copied), then loading it (no fraction to show).
    let progress = RwSignal::new(None::<Option<f64>>);
    let kept = LocalResource::new(move || {
        changed.get();
        crate::inpage::kept()
    });
    let offered = LocalResource::new(crate::inpage::offered);
    // A picked or dropped file, or the name of a model this site offers.
    let keep = Action::new_local(move |source: &Source| {
        let source = source.clone();
        async move {
            progress.set(Some(Some(0.0)));
            let on_progress = move |f| progress.set(Some(Some(f)));
            let r = match source {
                Source::File(file) => crate::inpage::keep(file, on_progress).await,
                Source::Offered(name) => crate::inpage::keep_offered(&name, on_progress).await,
            };
            // Shown as words: an action's value is cloned each time it is read.
            let r = r.map_err(String::from);
            changed.update(|n| *n += 1);
            let model = match r {
                Ok(model) => model,
                Err(e) => {
                    progress.set(None);
                    return Err(e);
                }
            };
            s.update(|x| x.inpage_model = model.name.clone());
            s.get_untracked().save();
            progress.set(Some(None));
            let loaded = crate::inpage::load(&s.get_untracked().inpage_config()).await;
            progress.set(None);
            let l = loaded.map_err(|e| format!("Kept {}, but it did not load: {e}", model.describe()))?;
            Ok::<String, String>(format!(
                "Kept {} in this browser and loaded it in {:.0} ms ({}).",
                model.describe(),
                l.load_ms,
                l.setup()
            ))
        }
    });
    let remove = Action::new_local(move |_: &()| async move {
        let r = crate::inpage::remove().await;
        changed.update(|n| *n += 1);
        r.map(|()| "Removed the model from this browser.".to_string()).map_err(String::from)
    });
    // The settings name the kept file, so labels and the proposal style follow it.
    Effect::new(move |_| {
        if let Some(Ok(Some(m))) = kept.get() {
            if s.get_untracked().inpage_model != m.name {
                s.update(|x| x.inpage_model = m.name.clone());
            }
        }
    });
    let pick = move |files: Option<web_sys::FileList>| {
        if let Some(file) = files.and_then(|f| f.get(0)) {
            keep.dispatch_local(Source::File(file));
        }
    };
    let auto_threads = crate::inpage::threads_for(0, crate::inpage::cores(), crate::inpage::isolated());
    let threads_note = if crate::inpage::isolated() {
        format!(
            "multi-threaded if asked: this page is cross-origin isolated. Auto runs {auto_threads} here \
             ({} cores: two on two cores, where two read a prompt ~1.8× faster than one on a quiet machine \
             and as fast when something else keeps a core busy; else half, at most four).",
            crate::inpage::cores()
        )
    } else {
        "single-threaded: this page is not cross-origin isolated (serve it with COOP/COEP headers, as scripts/serve.sh does)".to_string()
    };
    // While a file is being kept, the previous outcome is stale: the progress bar speaks.
    let status = move || {
        (!keep.pending().get())
            .then(|| [keep.value().get(), remove.value().get()].into_iter().flatten().last())
            .flatten()
    };
    view! {
        <fieldset class="inpage" data-testid="inpage">
            <legend>"Model in this browser"</legend>
            <p class="hint">"llama.cpp compiled to WebAssembly runs the model in a worker of this page. The file stays in this browser's private storage, so a reload — offline too — needs no second pick."</p>
            <div class="drop" data-testid="gguf-drop"
                on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default()
                on:drop=move |ev: web_sys::DragEvent| {
                    ev.prevent_default();
                    pick(ev.data_transfer().and_then(|d| d.files()));
                }>
                <label class="file">"Pick a .gguf model file, or drop it here " <input type="file" accept=".gguf" data-testid="gguf-file"
                    on:change=move |ev| {
                        let input: web_sys::HtmlInputElement = event_target(&ev);
                        pick(input.files());
                        input.set_value("");
                    } /></label>
            </div>
            {move || offered.get().and_then(|list| list.first().cloned()).map(|m| view! {
                <p data-testid="gguf-offered">{format!("This site offers {}. ", m.describe())}
                <button data-testid="gguf-keep-offered" on:click=move |_| { keep.dispatch_local(Source::Offered(m.name.clone())); }>
                    "Keep it in this browser"</button></p>
            })}
            {move || progress.get().map(|p| match p {
                Some(f) => view! {
                    <p>"Keeping the file: " <progress data-testid="gguf-progress" max="1" value=f.to_string()></progress>
                    {format!(" {:.0} %", f * 100.0)}</p>
                }.into_any(),
                None => view! {
                    <p>"Loading the model into this page: " <progress data-testid="gguf-loading"></progress></p>
                }.into_any(),
            })}
            <p data-testid="gguf-kept">{move || match kept.get() {
                None => "Looking for a kept model…".to_string(),
                Some(Ok(Some(m))) => format!("Kept: {}", m.describe()),
                Some(Ok(None)) => "No model kept yet.".to_string(),
                Some(Err(e)) => format!("The kept model cannot be read: {e}"),
            }}</p>
            <button data-testid="gguf-remove" disabled=move || !matches!(kept.get(), Some(Ok(Some(_))))
                on:click=move |_| { remove.dispatch(()); }>"Remove the model"</button>
            <label>"Context size (tokens) " <input type="number" min="512" step="512" data-testid="inpage-ctx"
                value=s.get_untracked().inpage_ctx.to_string()
                on:change=move |ev| s.update(|x| x.inpage_ctx = event_target_value(&ev).parse().unwrap_or(x.inpage_ctx)) /></label>
            <label>"Threads " <select data-testid="inpage-threads" disabled=!crate::inpage::isolated()
                on:change=move |ev| s.update(|x| x.inpage_threads = event_target_value(&ev).parse().unwrap_or(0))>
                {[0u32, 1, 2, 3, 4, 6, 8].into_iter().map(|n| {
                    let label = if n == 0 { format!("auto: {auto_threads} on this machine") } else { n.to_string() };
                    view! { <option value=n.to_string() selected=s.get_untracked().inpage_threads == n>{label}</option> }
                }).collect_view()}
            </select></label>
            <p class="hint" data-testid="inpage-threads-note">{threads_note}</p>
            <p data-testid="inpage-status" aria-live="polite">{move || status().map(|r| match r {
                Ok(m) => view! { <span class="ok">{m}</span> }.into_any(),
                Err(e) => view! { <span class="error" role="alert">{e}</span> }.into_any(),
            })}</p>
        </fieldset>
    }
}

/// Where a model to keep comes from: a file the user picked or dropped, or the name of one
/// this site offers.
#[derive(Clone)]
enum Source {
    File(web_sys::File),
    Offered(String),
}
