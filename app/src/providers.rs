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
