//! The mutations table — filterable by pass, verdict and proposer — and the lineage of
//! any item.

use super::{ctx, Tab};
use leptos::prelude::*;
use nocturne_core::model::memory::Mutation;
use nocturne_core::store::lineage;
use nocturne_core::store::Store;
use nocturne_core::PassKind;

/// Every proposed edit, accepted and refused.
#[component]
pub fn LogPanel() -> impl IntoView {
    let c = ctx();
    // The newest entries, a page at a time (how many the log holds besides).
    let shown = RwSignal::new(MUTATIONS_PER_PAGE);
    let seen = c.revision_for(Tab::Log);
    let log = LocalResource::new(move || {
        seen.get();
        let n = shown.get();
        let store = c.store.get_value();
        async move { store.last_mutations(n).await.map_err(|e| e.to_string()) }
    });
    let pass = RwSignal::new(None::<PassKind>);
    let verdict = RwSignal::new(String::new());
    let proposer = RwSignal::new(String::new());
    let selected = c.lineage;
    let keep = move |m: &Mutation| {
        let (p, v, who) = (pass.get(), verdict.get(), proposer.get());
        p.is_none_or(|p| m.pass == p)
            && (v.is_empty() || (v == "accepted") == m.accepted)
            && (who.is_empty() || (who == "model") != m.proposer.is_rule())
    };
    view! {
        <div class="log">
            <h2>"Mutations"</h2>
            <div class="controls">
                <label>"Pass " <select data-testid="pass-filter" on:change=move |ev| pass.set(PassKind::parse(&event_target_value(&ev)))>
                    <option value="">"all"</option>
                    {PassKind::ALL.into_iter().map(|p| view! { <option value=p.name()>{p.name()}</option> }).collect_view()}
                </select></label>
                <label>"Verdict " <select data-testid="verdict-filter" on:change=move |ev| verdict.set(event_target_value(&ev))>
                    <option value="">"all"</option><option value="accepted">"accepted"</option><option value="refused">"refused"</option>
                </select></label>
                <label>"Proposer " <select on:change=move |ev| proposer.set(event_target_value(&ev))>
                    <option value="">"all"</option><option value="model">"model"</option><option value="engine">"engine rules"</option>
                </select></label>
            </div>
            // A Transition, not a Suspense: the log read again after a write keeps the table on
            // the page until the new one is read.
            <Transition fallback=|| ()>
                {move || log.get().map(|r| match r {
                    Err(e) => view! { <p class="error" role="alert">{e}</p> }.into_any(),
                    Ok((total, all)) => {
                        let rows: Vec<Mutation> = all.iter().filter(|m| keep(m)).cloned().collect();
                        let kept = rows.len();
                        let older = all.first().is_some_and(|m| m.id > 1);
                        view! {
                            <p class="hint">{if older {
                                format!("{kept} of the newest {} of {total} mutations", all.len())
                            } else {
                                format!("{kept} of {total} mutations")
                            }}</p>
                            <table class="mutations" data-testid="mutations">
                                <thead><tr><th>"#"</th><th>"version"</th><th>"pass"</th><th>"kind"</th><th>"item"</th><th>"verdict"</th><th>"proposer"</th><th>"policy"</th><th>"reason"</th></tr></thead>
                                <tbody>
                                    {rows.into_iter().rev().map(|m| {
                                        let id = m.item_id.clone();
                                        let verdict = if m.accepted { "accepted".to_string() } else { format!("refused: {}", m.rejection_reason.clone().unwrap_or_default()) };
                                        // An edit of a reviewed plan names it: `(review p-…/r2)`.
                                        let verdict = match &m.refs.review { Some(r) => format!("{verdict} (review {r})"), None => verdict };
                                        view! {
                                            <tr class:refused=!m.accepted>
                                                <td>{m.id}</td><td>{format!("v{}", m.seq)}</td><td>{m.pass.name()}</td><td>{m.kind.as_str()}</td>
                                                <td><button class="link" on:click=move |_| selected.set(id.clone())>{m.item_id.clone()}</button></td>
                                                <td class="wrap">{verdict}</td><td>{m.proposer.as_str()}</td>
                                                <td>{m.policy.clone().unwrap_or_default()}</td><td class="wrap">{m.reason.clone()}</td>
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </table>
                            {older.then(|| view! {
                                <button class="small" data-testid="older-mutations" on:click=move |_| shown.update(|n| *n += MUTATIONS_PER_PAGE)>
                                    "Show older mutations"</button>
                            })}
                        }.into_any()
                    }
                })}
            </Transition>
            <Lineage id=selected />
        </div>
    }
}

/// Log entries drawn at first, and added by each "Show older mutations".
pub const MUTATIONS_PER_PAGE: usize = 200;

/// The lineage of the fact `id` names, from the log entries about it (the log's index).
#[component]
fn Lineage(id: RwSignal<String>) -> impl IntoView {
    let c = ctx();
    let seen = c.revision_for(Tab::Log);
    let about = LocalResource::new(move || {
        seen.get();
        let item = id.get();
        let store = c.store.get_value();
        async move {
            if item.is_empty() {
                return Ok((item, Vec::new()));
            }
            let log = store.mutations_about(std::slice::from_ref(&item)).await.map_err(|e| e.to_string())?;
            Ok::<_, String>((item, log))
        }
    });
    view! {
        <section class="lineage" data-testid="lineage">
            {move || {
                let item = id.get();
                if item.is_empty() {
                    return view! { <p class="hint">"Click an item id to see its lineage."</p> }.into_any();
                }
                // Drawn once the log about this fact is read (not another fact's, read before).
                let log = match about.get() {
                    Some(Ok((read, log))) if read == item => log,
                    Some(Err(e)) => return view! { <p class="error" role="alert">{e}</p> }.into_any(),
                    _ => return view! { <p class="status">"Reading its lineage…"</p> }.into_any(),
                };
                let steps = lineage::lineage(&item, &log);
                view! {
                    <h3>{format!("Lineage of {item}")}</h3>
                    <ol>
                        {steps.into_iter().map(|s| view! {
                            <li>{format!("v{} · {} · ", s.seq, s.pass)}{s.what}
                                {s.links.into_iter().map(|l| { let go = l.clone(); view! { " " <button class="link" on:click=move |_| id.set(go.clone())>{l}</button> } }).collect_view()}
                            </li>
                        }).collect_view()}
                    </ol>
                }.into_any()
            }}
        </section>
    }
}
