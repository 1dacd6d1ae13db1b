//! The table of objects a module hands to JavaScript by index, shared by the package's two
//! binding crates (fencepost-sim-wasm includes this file by path). A full table answers
//! `u32::MAX`, the bindings' "no object".

use alloc::vec::Vec;

/// One place in the table: an object, or a freed index with the next freed one after it.
enum Entry<T> {
    Full(T),
    Free { next: u32 },
}

/// A table of objects known by their index, with the indices given back for reuse (the last
/// one freed first). The freed indices are chained through their own places, so freeing an
/// object never allocates.
pub(crate) struct Slots<T> {
    items: Vec<Entry<T>>,
    /// The last index freed (`u32::MAX`: none), the head of the chain.
    free: u32,
}

impl<T> Slots<T> {
    pub(crate) const fn new() -> Slots<T> {
        Slots {
            items: Vec::new(),
            free: u32::MAX,
        }
    }

    /// Stores `item`; returns its index (`u32::MAX` if the table is full).
    pub(crate) fn add(&mut self, item: T) -> u32 {
        let i = self.free;
        if let Some(slot) = self.items.get_mut(i as usize)
            && let Entry::Free { next } = *slot
        {
            self.free = next;
            // A freed place holds only a number: nothing to drop.
            core::mem::forget(core::mem::replace(slot, Entry::Full(item)));
            return i;
        }
        match u32::try_from(self.items.len()) {
            Ok(i) if i < u32::MAX => {
                self.items.push(Entry::Full(item));
                i
            }
            _ => u32::MAX,
        }
    }

    pub(crate) fn get(&mut self, i: u32) -> Option<&mut T> {
        match self.items.get_mut(i as usize) {
            Some(Entry::Full(item)) => Some(item),
            _ => None,
        }
    }

    pub(crate) fn remove(&mut self, i: u32) {
        if let Some(slot) = self.items.get_mut(i as usize)
            && let Entry::Full(_) = slot
        {
            *slot = Entry::Free { next: self.free };
            self.free = i;
        }
    }
}
