//! The version timeline with restore, the diff of any two versions, the forgetting
//! curve and the mutations table.

use super::{ctx, now, Tab};
use crate::jobs;
use leptos::prelude::*;
use nocturne_core::model::label::Label;
use nocturne_core::model::memory::{Mutation, Version};
use nocturne_core::store::diff::{self, Diff};
use nocturne_core::store::search;
use nocturne_core::text::order;
use nocturne_core::PassKind;
use std::collections::BTreeSet;

/// Versions drawn at first, and added by each "Show older versions".
pub const VERSIONS_PER_PAGE: usize = 200;

/// How far back the diff shown before two versions are picked looks for the last Sleep.
const LAST_SLEEP_WITHIN: usize = 2_000;

/// Versions, diff, curve and log.
#[component]
pub fn VersionsPanel() -> impl IntoView {
    let c = ctx();
    // The newest versions, a page at a time: a memory that has lived for years has tens of
    // thousands.
    let shown = RwSignal::new(VERSIONS_PER_PAGE);
    let seen = c.revision_for(Tab::Versions);
    let versions = LocalResource::new(move || {
        seen.get();
        let n = shown.get();
        let store = c.store.get_value();
        async move { store.last_versions(n).await.map_err(|e| e.to_string()) }
    });
    let restore = Action::new_local(move |seq: &u64| {
        // In the job worker, through the one write path: recorded for the next sync when the
        // memory syncs.
        let job = jobs::Restore { memory: c.memory.get_untracked(), seq: *seq, now: now() };
        async move {
            let r = jobs::write(job).await;
            c.bump();
            r
        }
    });
    let by_time = RwSignal::new(false);
    // The Sleeps opened on the timeline, by the seq of their start: kept while the list is
    // drawn again after a write.
    let opened: RwSignal<BTreeSet<u64>> = RwSignal::new(BTreeSet::new());
    // Given words, the timeline keeps the versions that changed a fact holding them.
    let words = RwSignal::new(String::new());
    let touching = LocalResource::new(move || {
        seen.get();
        let q = words.get();
        let store = c.store.get_value();
        async move {
            if q.trim().is_empty() {
                return Ok(None);
            }
            // The facts holding the words (the words index), then the keys of their change rows.
            let (items, _) = search::gather(&store, &q).await.map_err(|e| e.to_string())?;
            let ids: Vec<String> =
                search::search(&items, &[], &q).into_iter().map(|h| h.item.item_id.clone()).collect();
            let seqs = store.versions_changing(&ids).await.map_err(|e| e.to_string())?;
            Ok::<_, String>(Some(seqs))
        }
    });
    let lo = RwSignal::new(0u64);
    let hi = RwSignal::new(0u64);
    // Until two versions are picked, the diff is the last Sleep's.
    let diffed = LocalResource::new(move || {
        seen.get();
        let (a, b) = (lo.get(), hi.get());
        let store = c.store.get_value();
        async move {
            let (a, b) = if a == 0 || b == 0 {
                match last_sleep(&store.last_versions(LAST_SLEEP_WITHIN).await.map_err(|e| e.to_string())?) {
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
            // Transitions, not Suspenses: reading the versions again after a write (a restore)
            // keeps the timeline and the diff on the page until the new ones are read.
            <Transition fallback=|| ()>
                {move || versions.get().map(|r| match r {
                    Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                    Ok(vs) => {
                        let first = vs.first().map_or(0, |v| v.seq);
                        view! {
                        <label class="small"><input type="checkbox" data-testid="curve-by-time" prop:checked=move || by_time.get()
                            on:change=move |ev| by_time.set(event_target_checked(&ev)) />" Curve by date (not by version)"</label>
                        {let vs = vs.clone(); move || view! { <Curve versions=vs.clone() by_time=by_time.get() /> }}
                        <ol class="timeline" data-testid="timeline">
                            {move || {
                                // Given words, only the versions that changed a fact holding them
                                // (and the Sleeps they are in, opened on them).
                                let only = touching.get().and_then(|r| r.ok()).flatten();
                                let row = Row { lo, hi, restore };
                                entries(&vs).into_iter().filter_map(|entry| match entry {
                                    Entry::One(v) => only.as_ref().is_none_or(|s| s.contains(&v.seq)).then(|| row.view(&v).into_any()),
                                    Entry::Sleep(sleep) => {
                                        let kept: Vec<Version> = sleep.iter().filter(|v| only.as_ref().is_none_or(|s| s.contains(&v.seq))).cloned().collect();
                                        (!kept.is_empty()).then(|| sleep_entry(&sleep, kept, only.is_some(), opened, row).into_any())
                                    }
                                }).collect_view()
                            }}
                        </ol>
                        {(first > 1).then(|| view! {
                            <button class="small" data-testid="older-versions" on:click=move |_| shown.update(|n| *n += VERSIONS_PER_PAGE)>
                                {format!("Show older versions (from v{first})")}</button>
                        })}
                    }.into_any()
                    }

                })}
            </Transition>
            {move || restore.value().get().map(|r| match r {
                Ok(id) => view! { <p class="ok" data-testid="restored">{format!("Restored as {id}.")}</p> }.into_any(),
                Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
            })}
            <h2 data-testid="diff-title">"Diff " {move || diffed.get().and_then(|r| r.ok()).flatten().map_or("(none yet)".to_string(), |(a, b, _)| format!("v{a} → v{b}"))}</h2>
            <Transition fallback=|| ()>
                {move || diffed.get().map(|r| match r {
                    Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                    Ok(None) => view! { <p class="hint">"No Sleep yet. Pick two versions with “diff from” and “diff to”, or press Sleep first."</p> }.into_any(),
                    Ok(Some((_, _, d))) => diff_view(d).into_any(),
                })}
            </Transition>
        </div>
    }
}

/// A line of the timeline: a version of its own, or one Sleep's versions (its start marker
/// and the versions before and after each pass), oldest first.
#[derive(Clone, Debug, PartialEq)]
enum Entry {
    One(Version),
    Sleep(Vec<Version>),
}

impl Entry {
    fn newest(&self) -> u64 {
        match self {
            Entry::One(v) => v.seq,
            Entry::Sleep(vs) => vs.last().map_or(0, |v| v.seq),
        }
    }
}

/// The timeline's lines, newest first: each Sleep's versions together, from its
/// `consolidation:start` to its last pass (a stopped Sleep's, to the last pass it wrote); a
/// version another writer made while a Sleep ran is a line of its own.
fn entries(versions: &[Version]) -> Vec<Entry> {
    let last_pass = Label::PassAfter(PassKind::SLEEP[PassKind::SLEEP.len() - 1]);
    let mut out: Vec<Entry> = Vec::new();
    // The Sleep being gathered, by its place in `out`.
    let mut open: Option<usize> = None;
    for v in versions {
        let kind = v.kind();
        match (kind, open) {
            (Label::SleepStart, _) => {
                out.push(Entry::Sleep(vec![v.clone()]));
                open = Some(out.len() - 1);
            }
            (kind @ (Label::PassBefore(_) | Label::PassAfter(_)), Some(at)) => {
                if let Entry::Sleep(vs) = &mut out[at] {
                    vs.push(v.clone());
                }
                if kind == last_pass {
                    open = None;
                }
            }
            _ => out.push(Entry::One(v.clone())),
        }
    }
    order::sort_by_key(&mut out, |e| std::cmp::Reverse(e.newest()));
    out
}

/// What a version's line acts on.
#[derive(Clone, Copy)]
struct Row {
    lo: RwSignal<u64>,
    hi: RwSignal<u64>,
    /// Restores a version; the line said, or why not (a `String`: an action's value must
    /// be `Clone`).
    restore: Action<u64, Result<String, String>>,
}

impl Row {
    /// One version, with its diff and restore buttons.
    fn view(self, v: &Version) -> impl IntoView {
        let Row { lo, hi, restore } = self;
        let seq = v.seq;
        view! {
            <li class="version">
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
    }
}

/// One Sleep as one line — its range, when, the active facts before and after, a diff of
/// the whole Sleep — opened on its passes' versions (`shown`, newest first), each with its
/// own diff and restore.
fn sleep_entry(
    sleep: &[Version],
    shown: Vec<Version>,
    filtered: bool,
    opened: RwSignal<BTreeSet<u64>>,
    row: Row,
) -> impl IntoView {
    let (first, last) = (&sleep[0], &sleep[sleep.len() - 1]);
    let (start, end) = (first.seq, last.seq);
    let passes = sleep.iter().filter(|v| matches!(v.kind(), Label::PassAfter(_))).count();
    let note = if passes == PassKind::SLEEP.len() {
        format!("{passes} passes, {} versions", sleep.len())
    } else {
        format!("{passes} of {} passes, {} versions", PassKind::SLEEP.len(), sleep.len())
    };
    // Opened by the user, or by a filter that found versions inside.
    let open = move || filtered || opened.with(|o| o.contains(&start));
    let toggle = move |_| {
        opened.update(|o| {
            if !o.remove(&start) {
                o.insert(start);
            }
        })
    };
    let Row { lo, hi, .. } = row;
    view! {
        <li class="sleep-entry" data-testid="sleep-entry" data-start=start data-end=end>
            <button class="toggle" data-testid="sleep-toggle" aria-expanded=move || open().to_string()
                title="Show the version before and after each pass" on:click=toggle>
                <span class="chevron" aria-hidden="true">{move || if open() { "▾" } else { "▸" }}</span>" Sleep"</button>
            " "<code>{format!("v{start} → v{end}")}</code>
            " "<time class="at">{stamp(first.at)}</time>
            " "<span class="count">{format!("{} → {} active", first.active_count, last.active_count)}</span>
            " "<span class="note">{note}</span>
            <button class="small" data-testid=format!("diff-sleep-{start}") on:click=move |_| { lo.set(start); hi.set(end); }>"diff this Sleep"</button>
            <ol class="sleep-versions" hidden=move || !open()>
                {shown.iter().rev().map(|v| row.view(v)).collect_view()}
            </ol>
        </li>
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
        format!("x: version, v{} → v{}", versions.first().map_or(0, |v| v.seq), versions.last().map_or(0, |v| v.seq))
    };
    view! {
        <figure class="curve">
            // Stretched to the panel's width (the line's stroke kept as drawn).
            <svg viewBox=format!("0 0 {w} {h}") preserveAspectRatio="none" role="img" aria-label="Forgetting curve: active facts per version">
                <polyline points=points fill="none" stroke="currentColor" stroke-width="2" vector-effect="non-scaling-stroke" />
            </svg>
            <figcaption data-testid="curve-caption">{format!("Active facts (y: 0 → {max}); {axis}")}</figcaption>
        </figure>
    }
}
