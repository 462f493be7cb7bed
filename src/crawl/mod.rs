//! Deep watches (issue 7).

pub mod focus;
pub mod neardup;
pub mod trap;
