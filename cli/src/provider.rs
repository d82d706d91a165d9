//! The provider a command uses: the embedded offline rules, or an OpenAI-compatible
//! endpoint, as the arguments chose.

use crate::args::{ProviderArgs, ProviderKind};
use crate::error::CliError;
use crate::openai;
use nocturne_core::llm::offline::OfflineProvider;
use nocturne_core::llm::provider::StyleSetting;

/// The provider a command uses: the offline rules or an endpoint.
pub(crate) enum AnyProvider {
    Offline(OfflineProvider),
    Remote(openai::OpenAi),
}

nocturne_core::forward_provider!(AnyProvider { Offline, Remote });

impl ProviderArgs {
    pub(crate) fn build(&self) -> Result<AnyProvider, CliError> {
        Ok(match self.provider {
            ProviderKind::Offline => AnyProvider::Offline(OfflineProvider),
            ProviderKind::Openai => AnyProvider::Remote(remote(
                self.timeout,
                &self.base_url,
                &self.model,
                self.api_key_env.as_deref(),
                self.proposal_style.into(),
            )?),
        })
    }
}

/// An OpenAI-compatible provider from the flags; the key is read from the named
/// environment variable and never printed.
pub(crate) fn remote(
    timeout: u64,
    url: &str,
    model: &str,
    key_env: Option<&str>,
    style: StyleSetting,
) -> Result<openai::OpenAi, CliError> {
    let key = match key_env {
        Some(var) => Some(
            std::env::var(var).map_err(|_| format!("the environment variable {var} (for the API key) is not set"))?,
        ),
        None => None,
    };
    Ok(openai::OpenAi::new(url, model, key, std::time::Duration::from_secs(timeout), style))
}
