//! How a model is asked for proposals — writing them in free text, or choosing among
//! candidates the code prepared — and how a provider keeps its style as it runs: fixed, or
//! `auto`, which moves a model to choosing when its free text mostly fails.

use serde::{Deserialize, Serialize};

/// How a model is asked for proposals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProposalStyle {
    /// The model writes each proposal (capable models); the gates judge it.
    #[default]
    FreeText,
    /// The model only chooses: the JSON Schema lists the candidate statements, pairs and
    /// ids the code prepared, so it cannot invent a token or an id. The gates still judge.
    Candidates,
}

impl ProposalStyle {
    /// `free text` or `choose from candidates`.
    pub fn label(self) -> &'static str {
        match self {
            ProposalStyle::FreeText => "free text",
            ProposalStyle::Candidates => "choose from candidates",
        }
    }

    /// The style for a model by its name: small models (≤ 1B parameters, by the names
    /// they are published under) choose from candidates.
    ///
    /// ```
    /// use nocturne_core::llm::provider::ProposalStyle;
    /// assert_eq!(ProposalStyle::for_model("smollm2"), ProposalStyle::Candidates);
    /// assert_eq!(ProposalStyle::for_model("gpt-4o"), ProposalStyle::FreeText);
    /// ```
    pub fn for_model(name: &str) -> ProposalStyle {
        let name = name.to_lowercase();
        let small = ["smollm", "135m", "360m", "0.5b", "0.6b", "1b", "1.1b", "tinyllama", "qwen2.5-0.5", "gemma-3-1b"];
        if small.iter().any(|s| name.contains(s)) {
            ProposalStyle::Candidates
        } else {
            ProposalStyle::FreeText
        }
    }
}

/// `auto` for a configurable provider: starts from the model's name, then moves to
/// candidates for good once its free-text proposals are refused more than half the time
/// (over at least four proposals).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoStyle {
    pub style: ProposalStyle,
    proposed: usize,
    refused: usize,
}

impl AutoStyle {
    /// Starts from the model's name.
    pub fn for_model(name: &str) -> AutoStyle {
        AutoStyle { style: ProposalStyle::for_model(name), proposed: 0, refused: 0 }
    }

    /// Counts a batch of free-text verdicts and switches when most were refused.
    pub fn observe(&mut self, proposed: usize, refused: usize) {
        if self.style != ProposalStyle::FreeText {
            return;
        }
        self.proposed += proposed;
        self.refused += refused;
        if self.proposed >= 4 && 2 * self.refused > self.proposed {
            self.style = ProposalStyle::Candidates;
        }
    }

    /// Counts a free-text reply that could not be used (cut off at the token limit, or not
    /// the JSON asked for) against free text: it moves to candidates at once. Returns
    /// whether it switched.
    pub fn unusable(&mut self) -> bool {
        let switched = self.style == ProposalStyle::FreeText;
        self.style = ProposalStyle::Candidates;
        switched
    }
}

/// The line shown when `auto` moves a model to choosing because of an unusable reply.
pub fn switch_line(model: &str, why: &str) -> String {
    format!("auto: {model}'s free-text reply was unusable ({why}); it answers and proposes by choosing from now on")
}

/// What the user chose for a provider's proposal style.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StyleSetting {
    /// From the model's name, then by how often its free text is refused.
    #[default]
    Auto,
    FreeText,
    Candidates,
}

impl StyleSetting {
    /// Parses `auto`, `free-text` or `candidates`.
    pub fn parse(text: &str) -> Option<StyleSetting> {
        match text {
            "auto" => Some(StyleSetting::Auto),
            "free-text" => Some(StyleSetting::FreeText),
            "candidates" => Some(StyleSetting::Candidates),
            _ => None,
        }
    }

    /// The state a provider keeps for this setting and model.
    pub fn start(self, model: &str) -> StyleState {
        match self {
            StyleSetting::Auto => StyleState::Auto(AutoStyle::for_model(model)),
            StyleSetting::FreeText => StyleState::Fixed(ProposalStyle::FreeText),
            StyleSetting::Candidates => StyleState::Fixed(ProposalStyle::Candidates),
        }
    }
}

/// A provider's own proposal style as it runs, for a provider that keeps it itself (the
/// command line's endpoint, the verifier worker's view of the page's provider): what the
/// [`Provider`](super::Provider) methods about the style answer, written once.
///
/// ```
/// use nocturne_core::llm::provider::{ProposalStyle, StyleCell, StyleSetting};
/// let style = StyleCell::new(StyleSetting::Auto.start("llama-3-8b"), "llama-3-8b");
/// assert_eq!(style.current(), ProposalStyle::FreeText);
/// assert!(style.unusable("cut off").is_some());
/// assert_eq!(style.current(), ProposalStyle::Candidates);
/// ```
#[derive(Clone, Debug)]
pub struct StyleCell {
    state: std::cell::Cell<StyleState>,
    model: String,
}

impl StyleCell {
    /// Starts at `state` for the model named `model` (as `auto`'s switch line names it).
    pub fn new(state: StyleState, model: &str) -> StyleCell {
        StyleCell { state: std::cell::Cell::new(state), model: model.to_string() }
    }

    /// The state now.
    pub fn get(&self) -> StyleState {
        self.state.get()
    }

    /// The style to ask with now ([`Provider::proposal_style`](super::Provider::proposal_style)).
    pub fn current(&self) -> ProposalStyle {
        self.state.get().current()
    }

    /// [`Provider::observe_refusals`](super::Provider::observe_refusals).
    pub fn observe(&self, proposed: usize, refused: usize) {
        self.state.set(self.state.get().observe(proposed, refused));
    }

    /// [`Provider::observe_unusable`](super::Provider::observe_unusable).
    pub fn unusable(&self, why: &str) -> Option<String> {
        let (next, line) = self.state.get().unusable(&self.model, why);
        self.state.set(next);
        line
    }
}

/// A provider's proposal style as it runs (keep it in a `Cell`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StyleState {
    Fixed(ProposalStyle),
    Auto(AutoStyle),
}

impl StyleState {
    /// The style to ask with now.
    pub fn current(self) -> ProposalStyle {
        match self {
            StyleState::Fixed(s) => s,
            StyleState::Auto(a) => a.style,
        }
    }

    /// Counts refusals (only `auto` changes).
    pub fn observe(self, proposed: usize, refused: usize) -> StyleState {
        match self {
            StyleState::Auto(mut a) => {
                a.observe(proposed, refused);
                StyleState::Auto(a)
            }
            fixed => fixed,
        }
    }

    /// Counts an unusable free-text reply from `model` (only `auto` changes): the new state,
    /// and the line to show when it switched to choosing (see [`switch_line`]).
    pub fn unusable(self, model: &str, why: &str) -> (StyleState, Option<String>) {
        match self {
            StyleState::Auto(mut a) => {
                let switched = a.unusable();
                (StyleState::Auto(a), switched.then(|| switch_line(model, why)))
            }
            fixed => (fixed, None),
        }
    }

    /// `choose from candidates (auto)`.
    pub fn label(self) -> String {
        match self {
            StyleState::Fixed(s) => s.label().to_string(),
            StyleState::Auto(a) => format!("{} (auto)", a.style.label()),
        }
    }
}
