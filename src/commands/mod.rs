//! One module per subcommand.

pub mod dedup;
mod load;
pub mod scan;
pub mod sketch;
