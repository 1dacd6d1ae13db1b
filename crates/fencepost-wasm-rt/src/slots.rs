//! The table of objects a module hands to JavaScript by index. A full table answers `u32::MAX`,
//! the bindings' "no object".

use alloc::vec::Vec;

/// One place in the table: an object, or a freed index with the next freed one after it.
enum Entry<T> {
    Full(T),
    Free { next: u32 },
}

/// A table of objects known by their index, with the indices given back for reuse (the last
/// one freed first). The freed indices are chained through their own places, so freeing an
/// object never allocates.
pub struct Slots<T> {
    items: Vec<Entry<T>>,
    /// The last index freed (`u32::MAX`: none), the head of the chain.
    free: u32,
}

impl<T> Default for Slots<T> {
    fn default() -> Slots<T> {
        Slots::new()
    }
}

impl<T> Slots<T> {
    /// An empty table.
    pub const fn new() -> Slots<T> {
        Slots {
            items: Vec::new(),
            free: u32::MAX,
        }
    }

    /// Makes sure the next [`add`](Slots::add) needs no allocation that could fail: true when a
    /// freed index is waiting or the table has room for one more (growing it if it can), false
    /// when the memory cannot hold a larger table. Nothing else changes either way.
    pub fn reserve_one(&mut self) -> bool {
        let reused = (self.free as usize) < self.items.len();
        reused || self.items.try_reserve(1).is_ok()
    }

    /// Stores `item`; returns its index (`u32::MAX` if the table is full).
    pub fn add(&mut self, item: T) -> u32 {
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

    /// Most bytes one [`Slots::add`] can allocate: the table's vector moving to twice its
    /// capacity, counted as the block the allocator gives for it (a power of two).
    pub fn add_bytes(&self) -> u64 {
        let next = self.items.capacity().saturating_mul(2).max(4);
        let bytes = next.saturating_mul(core::mem::size_of::<Entry<T>>()) as u64;
        bytes.max(16).next_power_of_two()
    }

    /// The object at `i`, if there is one.
    pub fn get(&mut self, i: u32) -> Option<&mut T> {
        match self.items.get_mut(i as usize) {
            Some(Entry::Full(item)) => Some(item),
            _ => None,
        }
    }

    /// Drops the object at `i`, if there is one, and frees its index.
    pub fn remove(&mut self, i: u32) {
        if let Some(slot) = self.items.get_mut(i as usize)
            && let Entry::Full(_) = slot
        {
            *slot = Entry::Free { next: self.free };
            self.free = i;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Slots;
    use alloc::string::{String, ToString};

    #[test]
    fn freed_indices_are_reused_last_freed_first() {
        let mut s: Slots<String> = Slots::new();
        assert_eq!(
            (s.add("a".into()), s.add("b".into()), s.add("c".into())),
            (0, 1, 2)
        );
        s.remove(0);
        s.remove(2);
        // Removing twice, or an index never given, changes nothing.
        s.remove(2);
        s.remove(9);
        assert_eq!(s.get(0), None);
        assert_eq!(s.get(1).map(|v| v.to_string()), Some("b".into()));
        assert_eq!(s.add("d".into()), 2);
        assert_eq!(s.add("e".into()), 0);
        assert_eq!(s.add("f".into()), 3);
        assert_eq!(s.get(0).map(|v| v.as_str()), Some("e"));
        assert_eq!(s.get(2).map(|v| v.as_str()), Some("d"));
    }

    #[test]
    fn reserving_one_leaves_room_for_the_next_add_and_nothing_else() {
        let mut s: Slots<String> = Slots::new();
        assert!(s.reserve_one());
        let room = s.items.capacity();
        assert!(room >= 1);
        assert_eq!(s.items.len(), 0);
        for i in 0..room as u32 {
            assert_eq!(s.add(i.to_string()), i);
        }
        // Full: reserving grows the table; with a freed index waiting, nothing grows.
        assert!(s.reserve_one());
        assert!(s.items.capacity() > room);
        let grown = s.items.capacity();
        s.remove(0);
        assert!(s.reserve_one());
        assert_eq!(s.items.capacity(), grown);
        assert_eq!(s.add("again".into()), 0);
    }
}
