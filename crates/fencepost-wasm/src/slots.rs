//! The table of objects a module hands to JavaScript by index, shared by the package's two
//! binding crates (fencepost-sim-wasm includes this file by path). A full table answers
//! `u32::MAX`, the bindings' "no object".

use alloc::vec::Vec;

/// A table of objects known by their index, with the indices given back for reuse.
pub(crate) struct Slots<T> {
    items: Vec<Option<T>>,
    unused: Vec<u32>,
}

impl<T> Slots<T> {
    pub(crate) const fn new() -> Slots<T> {
        Slots {
            items: Vec::new(),
            unused: Vec::new(),
        }
    }

    /// Stores `item`; returns its index (`u32::MAX` if the table is full).
    pub(crate) fn add(&mut self, item: T) -> u32 {
        if let Some(i) = self.unused.pop()
            && let Some(slot) = self.items.get_mut(i as usize)
        {
            *slot = Some(item);
            return i;
        }
        match u32::try_from(self.items.len()) {
            Ok(i) if i < u32::MAX => {
                self.items.push(Some(item));
                i
            }
            _ => u32::MAX,
        }
    }

    #[inline(always)]
    pub(crate) fn get(&mut self, i: u32) -> Option<&mut T> {
        self.items.get_mut(i as usize).and_then(Option::as_mut)
    }

    pub(crate) fn remove(&mut self, i: u32) {
        if let Some(slot) = self.items.get_mut(i as usize)
            && slot.take().is_some()
        {
            self.unused.push(i);
        }
    }
}
