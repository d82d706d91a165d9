//! The provider the app uses: the embedded offline one, an OpenAI-compatible endpoint, or
//! a GGUF model run in the page.

use crate::http::HttpProvider;
use crate::inpage::InPageProvider;
use nocturne_core::llm::offline::OfflineProvider;

/// Either provider, chosen in Settings.
#[derive(Clone, Debug)]
pub enum AnyProvider {
    Offline(OfflineProvider),
    Http(HttpProvider),
    InPage(InPageProvider),
}

nocturne_core::forward_provider!(AnyProvider { Offline, Http, InPage });

impl AnyProvider {
    /// Where the provider keeps its proposal style this session (`None`: the offline
    /// provider's never changes).
    pub fn style(&self) -> Option<crate::http::StyleSlot<'_>> {
        match self {
            AnyProvider::Offline(_) => None,
            AnyProvider::Http(p) => Some(p.style()),
            AnyProvider::InPage(p) => Some(p.style()),
        }
    }
}
