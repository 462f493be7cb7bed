//! Deep watches (issue 7).

pub mod neardup;
pub mod trap;
