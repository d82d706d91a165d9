//! The provider the app uses: the embedded offline one, an OpenAI-compatible endpoint, or
//! a GGUF model run in the page.

use crate::http::HttpProvider;
use crate::inpage::InPageProvider;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::{Completion, ProposalStyle, Provider, ProviderError, Request};

/// Either provider, chosen in Settings.
#[derive(Clone, Debug)]
pub enum AnyProvider {
    Offline(OfflineProvider),
    Http(HttpProvider),
    InPage(InPageProvider),
}

impl Provider for AnyProvider {
    fn label(&self) -> String {
        match self {
            AnyProvider::Offline(p) => p.label(),
            AnyProvider::Http(p) => p.label(),
            AnyProvider::InPage(p) => p.label(),
        }
    }

    fn proposal_style(&self) -> ProposalStyle {
        match self {
            AnyProvider::Offline(p) => p.proposal_style(),
            AnyProvider::Http(p) => p.proposal_style(),
            AnyProvider::InPage(p) => p.proposal_style(),
        }
    }

    fn observe_refusals(&self, proposed: usize, refused: usize) {
        match self {
            AnyProvider::Offline(p) => p.observe_refusals(proposed, refused),
            AnyProvider::Http(p) => p.observe_refusals(proposed, refused),
            AnyProvider::InPage(p) => p.observe_refusals(proposed, refused),
        }
    }

    fn observe_unusable(&self, why: &str) -> Option<String> {
        match self {
            AnyProvider::Offline(p) => p.observe_unusable(why),
            AnyProvider::Http(p) => p.observe_unusable(why),
            AnyProvider::InPage(p) => p.observe_unusable(why),
        }
    }

    async fn complete(&self, request: &Request) -> Result<Completion, ProviderError> {
        match self {
            AnyProvider::Offline(p) => p.complete(request).await,
            AnyProvider::Http(p) => p.complete(request).await,
            AnyProvider::InPage(p) => p.complete(request).await,
        }
    }

    async fn complete_streaming(
        &self,
        request: &Request,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<Completion, ProviderError> {
        match self {
            AnyProvider::Offline(p) => p.complete_streaming(request, on_delta).await,
            AnyProvider::Http(p) => p.complete_streaming(request, on_delta).await,
            AnyProvider::InPage(p) => p.complete_streaming(request, on_delta).await,
        }
    }
}
