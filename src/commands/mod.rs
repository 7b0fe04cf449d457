//! One module per subcommand.

pub mod dedup;
pub mod eval;
mod load;
pub mod scan;
pub mod sketch;
