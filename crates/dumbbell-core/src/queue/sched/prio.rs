//! Strict priority: the short-flow queue is served whenever it holds a
//! packet; the long-flow queue only when the short one is empty. Long
//! packets can starve, which is the point (and, in the paper's closed loop,
//! the cost: §6).

use super::{Heads, Scheduler};
use crate::queue::classify::Class;

#[derive(Clone, Copy, Debug, Default)]
pub struct StrictPriority;

impl Scheduler for StrictPriority {
    fn pick(&mut self, heads: Heads) -> Option<Class> {
        if heads[Class::Short.index()].is_some() {
            Some(Class::Short)
        } else if heads[Class::Long.index()].is_some() {
            Some(Class::Long)
        } else {
            None
        }
    }

    fn name(&self) -> &'static str {
        "prio"
    }
}
