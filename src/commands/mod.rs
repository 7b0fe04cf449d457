//! One module per subcommand.

pub mod dedup;
pub mod eval;
mod load;
pub mod mirrors;
pub mod overlap;
pub mod scan;
pub mod sketch;
