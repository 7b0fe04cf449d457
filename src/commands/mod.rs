//! One module per subcommand.

pub mod dedup;
pub mod eval;
pub mod evolve;
pub mod mirrors;
pub mod overlap;
pub mod replicas;
pub mod scan;
pub mod sketch;
