//! Pairs the engine measured for a pass to adjudicate: Dedupe's near-identical facts,
//! Merge's neighbours and Supersede's conflicting ones. Distinct types, because a
//! duplicate's `drop`/`keeper`, a merge's `into`/`from` and a conflict's `old`/`new` are
//! different roles.

/// Two facts similar enough to be one (similarity ≥ threshold): `drop_id` restates
/// `keeper_id`.
#[derive(Clone, Debug, PartialEq)]
pub struct DuplicateCandidate {
    pub drop_id: String,
    pub keeper_id: String,
    pub similarity: f64,
}

/// Two facts about the same subject with different values: `new_id` may supersede `old_id`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConflictCandidate {
    pub old_id: String,
    pub new_id: String,
    /// Containment similarity of the pair (below the duplicate threshold).
    pub similarity: f64,
}

/// Two facts of one block and category that may describe one thing: `from_id` may be
/// folded into `into_id` (the earlier). They share `shared` uncommon content tokens, yet
/// are neither duplicates nor a conflict.
#[derive(Clone, Debug, PartialEq)]
pub struct MergeCandidate {
    pub into_id: String,
    pub from_id: String,
    pub shared: usize,
}

/// What the engine hands one pass besides the items.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Candidates {
    /// Promote and Forget get none.
    #[default]
    None,
    Duplicates(Vec<DuplicateCandidate>),
    Conflicts(Vec<ConflictCandidate>),
    Merges(Vec<MergeCandidate>),
}

impl Candidates {
    /// How many pairs there are.
    pub fn len(&self) -> usize {
        match self {
            Candidates::None => 0,
            Candidates::Duplicates(p) => p.len(),
            Candidates::Conflicts(p) => p.len(),
            Candidates::Merges(p) => p.len(),
        }
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Dedupe's pairs (empty for any other pass).
    pub fn duplicates(&self) -> &[DuplicateCandidate] {
        match self {
            Candidates::Duplicates(p) => p,
            Candidates::None | Candidates::Conflicts(_) | Candidates::Merges(_) => &[],
        }
    }

    /// Supersede's pairs (empty for any other pass).
    pub fn conflicts(&self) -> &[ConflictCandidate] {
        match self {
            Candidates::Conflicts(p) => p,
            Candidates::None | Candidates::Duplicates(_) | Candidates::Merges(_) => &[],
        }
    }

    /// Merge's pairs (empty for any other pass).
    pub fn merges(&self) -> &[MergeCandidate] {
        match self {
            Candidates::Merges(p) => p,
            Candidates::None | Candidates::Duplicates(_) | Candidates::Conflicts(_) => &[],
        }
    }
}
