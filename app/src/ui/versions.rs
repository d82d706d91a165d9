//! The version timeline with restore, the diff of any two versions, the forgetting
//! curve and the mutations table.

use super::{ctx, now};
use crate::jobs::{self, Job};
use leptos::prelude::*;
use nocturne_core::model::label::Label;
use nocturne_core::model::memory::{Mutation, Version};
use nocturne_core::store::diff::{self, Diff};
use nocturne_core::store::Store;

/// Versions, diff, curve and log.
#[component]
pub fn VersionsPanel() -> impl IntoView {
    let c = ctx();
    let versions = c.load(|store| async move { store.versions().await });
    let restore = Action::new_local(move |seq: &u64| {
        // In the job worker, through the one write path: recorded for the next sync when the
        // memory syncs.
        let job = Job::Restore { memory: c.memory.get_untracked(), seq: *seq, now: now() };
        async move {
            let r = jobs::write(job).await;
            c.bump();
            r
        }
    });
    let by_time = RwSignal::new(false);
    // Given words, the timeline keeps the versions that changed a fact holding them.
    let words = RwSignal::new(String::new());
    let touching = LocalResource::new(move || {
        c.revision.get();
        let q = words.get();
        let store = c.store.get_value();
        async move {
            if q.trim().is_empty() {
                return Ok(None);
            }
            let items = store.items().await.map_err(|e| e.to_string())?;
            let ids: std::collections::HashSet<String> = nocturne_core::store::search::search(&items, &[], &q)
                .into_iter()
                .map(|h| h.item.item_id.clone())
                .collect();
            let head = store.meta().await.map_err(|e| e.to_string())?.head;
            let changes = store.changes(0, head).await.map_err(|e| e.to_string())?;
            let seqs: std::collections::BTreeSet<u64> =
                changes.into_iter().filter(|(_, i)| ids.contains(&i.item_id)).map(|(seq, _)| seq).collect();
            Ok::<_, String>(Some(seqs))
        }
    });
    let lo = RwSignal::new(0u64);
    let hi = RwSignal::new(0u64);
    // Until two versions are picked, the diff is the last Sleep's.
    let diffed = LocalResource::new(move || {
        c.revision.get();
        let (a, b) = (lo.get(), hi.get());
        let store = c.store.get_value();
        async move {
            let (a, b) = if a == 0 || b == 0 {
                match last_sleep(&store.versions().await.map_err(|e| e.to_string())?) {
                    Some(range) => range,
                    None => return Ok(None),
                }
            } else {
                (a, b)
            };
            diff::diff(&store, a, b).await.map(|d| Some((a, b, d))).map_err(|e| e.to_string())
        }
    });
    view! {
        <div class="versions">
            <h2>"Versions"</h2>
            <label class="search"><span class="sr">"Filter the timeline"</span>
                <input type="search" data-testid="timeline-search" placeholder="Versions that changed a fact holding these words…"
                    prop:value=move || words.get() on:input=move |ev| words.set(event_target_value(&ev)) /></label>
            <Suspense fallback=|| ()>
                {move || versions.get().map(|r| match r {
                    Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                    Ok(vs) => view! {
                        <label class="small"><input type="checkbox" data-testid="curve-by-time" prop:checked=move || by_time.get()
                            on:change=move |ev| by_time.set(event_target_checked(&ev)) />" Curve by date (not by version)"</label>
                        {let vs = vs.clone(); move || view! { <Curve versions=vs.clone() by_time=by_time.get() /> }}
                        <ol class="timeline" data-testid="timeline">
                            {vs.iter().rev().filter(|v| touching.get().and_then(|r| r.ok()).flatten().is_none_or(|seqs| seqs.contains(&v.seq))).map(|v| {
                                let seq = v.seq;
                                view! {
                                    <li>
                                        <code>{v.id()}</code>" "<span class="label">{v.label.clone()}</span>
                                        " "<time class="at">{stamp(v.at)}</time>
                                        " "<span class="count">{format!("{} active", v.active_count)}</span>
                                        <button class="small" on:click=move |_| lo.set(seq)>"diff from"</button>
                                        <button class="small" on:click=move |_| hi.set(seq)>"diff to"</button>
                                        <button class="small" data-testid=format!("restore-{seq}") on:click=move |_| {
                                            let ok = window().confirm_with_message(&format!("Restore v{seq}? The current state stays in history as its own version.")).unwrap_or(false);
                                            if ok { restore.dispatch(seq); }
                                        }>"restore"</button>
                                    </li>
                                }
                            }).collect_view()}
                        </ol>
                    }.into_any(),
                })}
            </Suspense>
            {move || restore.value().get().map(|r| match r {
                Ok(id) => view! { <p class="ok" data-testid="restored">{format!("Restored as {id}.")}</p> }.into_any(),
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
            <h2 data-testid="diff-title">"Diff " {move || diffed.get().and_then(|r| r.ok()).flatten().map_or("(none yet)".to_string(), |(a, b, _)| format!("v{a} → v{b}"))}</h2>
            <Suspense fallback=|| ()>
                {move || diffed.get().map(|r| match r {
                    Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                    Ok(None) => view! { <p class="hint">"No Sleep yet. Pick two versions with “diff from” and “diff to”, or press Sleep first."</p> }.into_any(),
                    Ok(Some((_, _, d))) => diff_view(d).into_any(),
                })}
            </Suspense>
        </div>
    }
}

fn who(m: &Mutation) -> String {
    format!("{} · {} · {}", m.pass, m.policy.clone().unwrap_or_else(|| m.proposer.as_str().to_string()), m.reason)
}

fn diff_view(d: Diff) -> impl IntoView {
    view! {
        <div class="diff" data-testid="diff">
            <p>{format!("kept {} · changed {} · forgotten {} · added {} · refused {}", d.kept, d.changed.len(), d.forgotten.len(), d.added.len(), d.refused.len())}</p>
            <ul>
                {d.changed.into_iter().map(|c| view! {
                    // The core's words, as `nocturne diff` prints them (`moved to human (from scratch): …`).
                    <li class="changed"><b>"changed "</b><code>{c.after.item_id.clone()}</code>{format!(" {}", c.what())}
                        <small>{c.sources.iter().map(|m| format!(" ({}{})", who(m), if m.refs.from_ids.is_empty() { String::new() } else { format!(", from {}", m.refs.from_ids.join(", ")) })).collect::<String>()}</small></li>
                }).collect_view()}
                {d.forgotten.into_iter().map(|f| view! {
                    <li class="forgotten"><b>"forgotten "</b><code>{f.item.item_id.clone()}</code>{format!(" “{}”", f.item.text)}
                        <small>{f.by.as_ref().map(|m| format!(" — {}", who(m))).unwrap_or_else(|| " — retired by a restore".into())}</small></li>
                }).collect_view()}
                {d.added.into_iter().map(|a| view! {
                    <li class="added"><b>"added "</b><code>{a.item_id.clone()}</code>{format!(" “{}”", a.text)}</li>
                }).collect_view()}
                {d.refused.into_iter().map(|m| view! {
                    <li class="refused"><b>"refused "</b>{format!("{} {} {}: ", m.pass, m.kind, m.item_id)}{m.rejection_reason.clone().unwrap_or_default()}</li>
                }).collect_view()}
            </ul>
        </div>
    }
}

/// The versions the last Sleep spans: from its `consolidation:start` to its last pass.
fn last_sleep(versions: &[Version]) -> Option<(u64, u64)> {
    let start = versions.iter().rposition(|v| v.kind() == Label::SleepStart)?;
    let end = versions[start..].iter().take_while(|v| v.kind().is_sleep()).last()?;
    (end.seq > versions[start].seq).then_some((versions[start].seq, end.seq))
}

/// `2026-11-30 14:05` (UTC), when a version was written.
fn stamp(at: i64) -> String {
    let day = nocturne_core::text::when::Day::from_unix(at);
    let secs = at.rem_euclid(86_400);
    format!("{day} {:02}:{:02}", secs / 3600, secs % 3600 / 60)
}

/// Active facts per version, as an SVG line: one step per version, or placed by when each
/// version was written (`by_time`), so forgetting can be read by real time.
#[component]
fn Curve(versions: Vec<Version>, by_time: bool) -> impl IntoView {
    let (w, h) = (600.0, 120.0);
    let max = versions.iter().map(|v| v.active_count).max().unwrap_or(1).max(1) as f64;
    let n = versions.len().max(2) as f64 - 1.0;
    let (first, last) = (versions.first().map_or(0, |v| v.at), versions.last().map_or(0, |v| v.at));
    let span = (last - first).max(1) as f64;
    let points: String = versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let x = if by_time { (v.at - first) as f64 / span } else { i as f64 / n };
            format!("{:.1},{:.1} ", 10.0 + (w - 20.0) * x, h - 10.0 - (h - 20.0) * v.active_count as f64 / max)
        })
        .collect();
    let axis = if by_time {
        format!("x: time, {} → {}", stamp(first), stamp(last))
    } else {
        format!("x: version, v1 → v{}", versions.len())
    };
    view! {
        <figure class="curve">
            <svg viewBox=format!("0 0 {w} {h}") role="img" aria-label="Forgetting curve: active facts per version">
                <polyline points=points fill="none" stroke="currentColor" stroke-width="2" />
            </svg>
            <figcaption data-testid="curve-caption">{format!("Active facts (y: 0 → {max}); {axis}")}</figcaption>
        </figure>
    }
}
