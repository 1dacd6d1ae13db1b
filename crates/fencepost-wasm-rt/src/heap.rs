//! A small allocator for the module: power-of-two size classes, each with a free list, carved from
//! memory the module grows on demand.
//!
//! The module is single-threaded, its allocations are small (names, snapshots, batch buffers) and
//! few are freed at a time, so this trades up to half of each block for a few hundred bytes of code
//! instead of a general-purpose allocator's several kilobytes. Memory is never handed back to the
//! host (a wasm memory cannot shrink); freed blocks are reused for the same class, and those that
//! lie at the top of the heap become free memory of any class again when a call needs room the
//! memory cannot grow to.

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;
use core::ptr;

const PAGE: u64 = 65_536;
/// Smallest block: room for the free-list link and 16-byte alignment for everything smaller.
const MIN_BLOCK: usize = 16;
/// Classes 0 to 32: every class [`class_of`] can answer. Rust asks for at most `isize::MAX` bytes,
/// so class 32 (a block of 4 GiB, which a 32-bit memory cannot hold) is never carved.
const CLASSES: usize = usize::BITS as usize + 1;
/// Most free blocks [`State::reclaim`] looks at, over all its passes: it stays well under a
/// second however many blocks are free.
const RECLAIM_VISITS: u64 = 1 << 24;

struct State {
    /// Head of each class's free list (0: empty). Class `c` holds blocks of `1 << c` bytes.
    free: [usize; CLASSES],
    /// Next unused byte of grown memory (a multiple of `MIN_BLOCK`), and the end of grown memory.
    /// Counted in 64 bits: a 32-bit memory ends at 4 GiB, one past the last `usize`, and no sum or
    /// product below can overflow.
    top: u64,
    end: u64,
}

/// The global allocator of the module.
pub struct SizeClasses(UnsafeCell<State>);

// SAFETY: the module runs on one thread (wasm32-unknown-unknown without the atomics feature).
unsafe impl Sync for SizeClasses {}

impl SizeClasses {
    /// An allocator that has handed out nothing yet.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> SizeClasses {
        SizeClasses(UnsafeCell::new(State {
            free: [0; CLASSES],
            top: 0,
            end: 0,
        }))
    }
}

/// The class of a block that can hold `size` bytes (blocks are aligned to their size up to
/// [`MIN_BLOCK`]): the smallest power of two at least `size` and `MIN_BLOCK`, as its exponent.
fn class_of(size: usize) -> usize {
    (usize::BITS - (size.max(MIN_BLOCK) - 1).leading_zeros()) as usize
}

impl State {
    /// Makes sure the next `need` bytes above `top` are grown memory of the module, growing it
    /// if they are not (false when the memory cannot grow that far: a 32-bit memory ends at
    /// 4 GiB, and a host may cap it lower).
    fn reserve(&mut self, need: u64) -> bool {
        if self.end == 0 {
            // Start above everything the module was instantiated with (data and stack).
            self.end = wasm32::memory_size(0) as u64 * PAGE;
            self.top = self.end;
        }
        if self.end - self.top >= need {
            return true;
        }
        // `top` and `need` are each under 2^33, so the page count fits the 32-bit argument.
        let pages = (self.top + need - self.end).div_ceil(PAGE);
        if pages > u64::from(u32::MAX) {
            return false;
        }
        let before = wasm32::memory_grow(0, pages as usize);
        if before == usize::MAX {
            return false;
        }
        let old_end = before as u64 * PAGE;
        let new_end = old_end + pages * PAGE;
        if old_end != self.end {
            // Something else grew the memory since: what lies between is not ours. Carry on
            // from the start of the pages just grown, and grow again if they are too few.
            self.top = old_end;
            self.end = new_end;
            return self.reserve(need);
        }
        self.end = new_end;
        true
    }

    /// Makes sure the next `need` bytes above `top` are grown memory of the module, as
    /// [`State::reserve`]; when the memory cannot grow that far, first gives the free blocks that
    /// lie at the top of the heap back to it ([`State::reclaim`]) and looks again.
    fn reserve_or_reclaim(&mut self, need: u64) -> bool {
        if self.reserve(need) {
            return true;
        }
        self.reclaim();
        self.reserve(need)
    }

    /// Lowers `top` past every free block that ends where it is, so that freed memory at the top
    /// of the heap can be carved again in blocks of any class (a free block elsewhere is only
    /// reused for its own class). Each pass walks every free list once; a block reaches `top`
    /// only once the blocks above it are given back, so this takes several passes (looking at
    /// no more than [`RECLAIM_VISITS`] blocks in all): it runs only when the memory cannot grow.
    fn reclaim(&mut self) {
        let mut visits = 0u64;
        while visits < RECLAIM_VISITS {
            let before = self.top;
            for class in 0..CLASSES {
                let size = 1u64 << class;
                // The link that points at `block`: the list's head, then each block's first word.
                let mut link: *mut usize = &mut self.free[class];
                // SAFETY: the free lists hold blocks this allocator handed out and got back; each
                // block's first word links to the next (0 ends the list).
                unsafe {
                    let mut block = *link;
                    while block != 0 {
                        visits += 1;
                        let next = ptr::read(block as *const usize);
                        if block as u64 + size == self.top {
                            *link = next;
                            self.top = block as u64;
                        } else {
                            link = block as *mut usize;
                        }
                        block = next;
                    }
                }
            }
            if self.top == before {
                return;
            }
        }
    }

    /// A fresh block of `1 << class` bytes from the end of the heap, aligned to `MIN_BLOCK`
    /// (null when the memory cannot grow that far).
    fn carve(&mut self, class: usize) -> *mut u8 {
        // At most 1 << 32 (class 32, which no memory can hold).
        let size = 1u64 << class;
        if !self.reserve(size) {
            return ptr::null_mut();
        }
        // `top` is a multiple of MIN_BLOCK: it starts at a page boundary and moves by whole blocks.
        let start = self.top;
        self.top = start + size;
        // Below 4 GiB: the block ends within the memory.
        start as usize as *mut u8
    }
}

impl SizeClasses {
    /// Makes room, before a call changes anything, for what it may allocate: afterwards,
    /// allocations whose sizes (each counted as at least 16) add up to at most `bytes` cannot
    /// fail (a reallocation counts with its new size). False when the memory cannot grow that
    /// far; the caller then refuses the call with a `RangeError` and leaves everything as it was.
    ///
    /// Rust has no fallible path for every allocation (a map's insert, a box), and a failed
    /// allocation traps the instance; so the bindings ask for their worst case up front instead.
    /// A block is at most twice the size asked for (size classes are powers of two), hence the
    /// factor of two.
    pub fn room(&self, bytes: usize) -> bool {
        // SAFETY: single-threaded, and never called from inside the allocator.
        let st = unsafe { &mut *self.0.get() };
        st.reserve_or_reclaim(2 * bytes as u64)
    }

    /// How far the allocator's heap reaches now: the top of what it has carved and not given
    /// back (before the first block, the end of what the module was instantiated with; it drops
    /// when freed blocks at the top become fresh memory again). Memory above it is free, grown
    /// ahead by [`SizeClasses::room`] or not grown yet.
    pub fn carved(&self) -> u64 {
        // SAFETY: single-threaded, and never called from inside the allocator.
        let st = unsafe { &*self.0.get() };
        if st.end == 0 {
            wasm32::memory_size(0) as u64 * PAGE
        } else {
            st.top
        }
    }

    /// As [`SizeClasses::room`], for a bound already counted in this allocator's blocks (each
    /// allocation's size rounded up to a power of two and to at least 16, as the simulator's
    /// memory bounds count them): afterwards, allocations whose blocks add up to at most `bytes`
    /// cannot fail.
    pub fn room_in_blocks(&self, bytes: u64) -> bool {
        // No 32-bit memory holds 4 GiB more; `reserve` counts on `need` staying under 2^33.
        if bytes >= 1 << 32 {
            return false;
        }
        // SAFETY: as in `room`.
        let st = unsafe { &mut *self.0.get() };
        st.reserve_or_reclaim(bytes)
    }

    /// As [`room`](SizeClasses::room), for a call that knows each allocation it may make: each
    /// of `sizes` (0: no allocation) is served by a block already freed of its class, or else by
    /// fresh memory. So a call the memory cannot hold any more still passes once objects were
    /// freed, as long as what it needs fits the blocks they left. The free lists are only walked when the
    /// memory cannot grow (a compare in the common case).
    #[inline]
    pub fn room_for(&self, sizes: &[usize]) -> bool {
        let mut total = 0u64;
        for &n in sizes {
            // An allocation of 0 bytes is none.
            if n > 0 {
                total += n.max(MIN_BLOCK) as u64;
            }
        }
        // SAFETY: single-threaded, and never called from inside the allocator.
        let st = unsafe { &*self.0.get() };
        st.end - st.top >= 2 * total && st.end != 0 || self.room_for_slowly(sizes, total)
    }

    /// [`room_for`](SizeClasses::room_for) when the grown memory is short: grow it, or else
    /// count what blocks already freed can serve.
    #[inline(never)]
    fn room_for_slowly(&self, sizes: &[usize], total: u64) -> bool {
        // SAFETY: single-threaded, and never called from inside the allocator.
        let st = unsafe { &mut *self.0.get() };
        // Freed blocks at the top become fresh memory first; only then are the rest counted (a
        // block the count relies on must not be reclaimed after it).
        if st.reserve_or_reclaim(2 * total) {
            return true;
        }
        let mut taken = [0usize; CLASSES];
        let mut fresh = 0u64;
        for &n in sizes.iter().filter(|&&n| n > 0) {
            let class = class_of(n);
            // SAFETY: as above; the lists hold blocks this allocator handed out and got back.
            if unsafe { st.free_blocks(class, taken[class] + 1) } > taken[class] {
                taken[class] += 1;
            } else {
                fresh += 1 << class;
            }
        }
        st.reserve(fresh)
    }
}

impl State {
    /// How many blocks the free list of `class` holds, counting at most `upto`.
    ///
    /// # Safety
    ///
    /// As for [`take`].
    unsafe fn free_blocks(&self, class: usize, upto: usize) -> usize {
        let (mut n, mut at) = (0, self.free[class]);
        while at != 0 && n < upto {
            n += 1;
            at = unsafe { ptr::read(at as *const usize) };
        }
        n
    }
}

unsafe impl GlobalAlloc for SizeClasses {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: single-threaded, and no allocation re-enters the allocator.
        let st = unsafe { &mut *self.0.get() };
        // Blocks are aligned to MIN_BLOCK, the largest alignment of any type in the modules
        // (u128's, on wasm32): a larger one is refused (null, which Rust reports as an allocation
        // failure) rather than served by code no type here needs.
        if layout.align() > MIN_BLOCK {
            return ptr::null_mut();
        }
        unsafe { take(st, class_of(layout.size())) }
    }

    // Out of line: every drop of a vector or a box (and every move to a larger block) frees
    // through here, and it is smaller called than copied into each of them.
    #[inline(never)]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: as in `alloc`.
        let st = unsafe { &mut *self.0.get() };
        let class = class_of(layout.size());
        unsafe { ptr::write(p as *mut usize, st.free[class]) };
        st.free[class] = p as usize;
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Every block was allocated with an alignment of at most MIN_BLOCK (see `alloc`), which
        // a block of any class has: only the size decides.
        let class = class_of(new_size);
        if class_of(layout.size()) == class {
            return p;
        }
        // SAFETY: as in `alloc`; the caller's contract for `realloc` covers the copy and the
        // `dealloc`.
        unsafe {
            let q = take(&mut *self.0.get(), class);
            if !q.is_null() {
                ptr::copy_nonoverlapping(p, q, layout.size().min(new_size));
                self.dealloc(p, layout);
            }
            q
        }
    }
}

/// A block of class `class`: from its free list, or carved fresh.
///
/// # Safety
///
/// Single-threaded use only; free-list heads point at blocks this allocator handed out and got
/// back.
unsafe fn take(st: &mut State, class: usize) -> *mut u8 {
    let head = st.free[class];
    if head != 0 {
        st.free[class] = unsafe { ptr::read(head as *const usize) };
        return head as *mut u8;
    }
    st.carve(class)
}
