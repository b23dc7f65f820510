//! PBS's `place=` (`doc/man1/qsub.1B`): how a job's chunks are arranged on nodes and whether
//! it shares them. The readers of a job's request give it; the simulator's placement obeys it.

/// `place=` arrangement.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Arrangement {
    #[default]
    Free,
    Pack,
    Scatter,
    VScatter,
}

/// `place=` sharing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Sharing {
    #[default]
    Shared,
    Excl,
    ExclHost,
}

impl Sharing {
    /// Whether a job of this sharing takes its nodes whole.
    pub fn exclusive(self) -> bool {
        self != Sharing::Shared
    }
}

/// `place=arrangement[:sharing]` (PBS's defaults: `free`, `shared`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Place {
    pub arrangement: Arrangement,
    pub sharing: Sharing,
}

impl std::fmt::Display for Place {
    /// `arrangement:sharing`, as `place=` spells it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let arrangement = match self.arrangement {
            Arrangement::Free => "free",
            Arrangement::Pack => "pack",
            Arrangement::Scatter => "scatter",
            Arrangement::VScatter => "vscatter",
        };
        let sharing = match self.sharing {
            Sharing::Shared => "shared",
            Sharing::Excl => "excl",
            Sharing::ExclHost => "exclhost",
        };
        write!(f, "{arrangement}:{sharing}")
    }
}
