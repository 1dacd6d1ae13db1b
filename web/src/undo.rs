//! The undo stack: what Undo can take back, one step at a time, the latest last.
//!
//! A leaf: it knows nothing of what it holds. The reducer ([`crate::state`]) keeps its lane
//! clicks here.

use std::rc::Rc;

/// Steps that Undo can take back, one at a time.
pub const MAX_UNDO: usize = 20;

/// A bounded stack of steps to take back, the latest last.
///
/// Shared between the states of a page rather than copied: every frame of playback makes a new
/// state, and copying the scenarios kept here on each one would cost more than the frame.
#[derive(Clone, Debug)]
pub struct Undo<T>(Rc<Vec<T>>);

impl<T> Default for Undo<T> {
    fn default() -> Undo<T> {
        Undo(Rc::new(Vec::new()))
    }
}

impl<T: PartialEq> PartialEq for Undo<T> {
    fn eq(&self, other: &Undo<T>) -> bool {
        Rc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl<T: Clone> Undo<T> {
    /// Nothing to take back.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many steps Undo can take back.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The latest step.
    pub fn last(&self) -> Option<&T> {
        self.0.last()
    }

    /// Records a step; past [`MAX_UNDO`], the oldest can no longer be taken back.
    pub fn push(&mut self, step: T) {
        let stack = Rc::make_mut(&mut self.0);
        if stack.len() >= MAX_UNDO {
            stack.remove(0);
        }
        stack.push(step);
    }

    /// Takes the latest step back.
    pub fn pop(&mut self) -> Option<T> {
        if self.0.is_empty() {
            return None;
        }
        Rc::make_mut(&mut self.0).pop()
    }

    /// Forgets every step; says whether there was one.
    pub fn clear(&mut self) -> bool {
        !std::mem::take(self).is_empty()
    }

    /// Whether `other` is this very stack, not a copy of it (copies of a state share it until
    /// one of them changes it).
    pub fn shares(&self, other: &Undo<T>) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_come_back_latest_first() {
        let mut u = Undo::default();
        assert_eq!((u.is_empty(), u.pop()), (true, None));
        u.push(1);
        u.push(2);
        assert_eq!((u.len(), u.last()), (2, Some(&2)));
        assert_eq!(u.pop(), Some(2));
        assert_eq!(u.pop(), Some(1));
        assert!(u.is_empty());
    }

    #[test]
    fn past_the_limit_the_oldest_step_is_forgotten() {
        let mut u = Undo::default();
        for i in 0..=MAX_UNDO {
            u.push(i);
        }
        assert_eq!(u.len(), MAX_UNDO);
        let mut oldest = None;
        while let Some(i) = u.pop() {
            oldest = Some(i);
        }
        assert_eq!(oldest, Some(1));
    }

    #[test]
    fn copies_share_the_stack_until_one_changes() {
        let mut u = Undo::default();
        u.push("click");
        let copy = u.clone();
        assert!(u.shares(&copy));
        let mut other = copy.clone();
        assert!(other.clear());
        assert!(!other.clear());
        assert_eq!(copy.len(), 1);
        assert!(!other.shares(&copy));
        assert_ne!(other, copy);
    }
}
