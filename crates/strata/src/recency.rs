//! Move-to-front ranks in `O(log n)`: each item remembers the time of its last use, and a
//! Fenwick tree over the times counts the items used since (its rank). The grammar code
//! codes a symbol by its rank, because a loop's rules come back soon after their last use.

/// Items (dense indices) ranked by recency of use; rank 0 is the most recent.
pub(crate) struct Recency {
    /// Fenwick tree over times: 1 where an item's last use is. Its size doubles as the uses
    /// grow (a decoder must not size it by a file's claim).
    tree: Vec<u32>,
    /// Per item: the time of its last use.
    time_of: Vec<u32>,
    /// Per time: the item used then (its last use where the tree has a 1).
    item_at: Vec<u32>,
    now: u32,
    live: u32,
    /// Uses allowed in all.
    limit: usize,
}

impl Recency {
    /// Room for `uses` uses in all (introductions included).
    pub(crate) fn with_uses(uses: usize) -> Self {
        Recency {
            tree: vec![0; uses.min(1 << 12) + 1],
            time_of: Vec::new(),
            item_at: Vec::new(),
            now: 0,
            live: 0,
            limit: uses.min(u32::MAX as usize),
        }
    }

    /// Uses left before the structure is full.
    pub(crate) fn room(&self) -> usize {
        self.limit - self.now as usize
    }

    /// Makes room in the tree for one more time: called before a use changes any mark, so
    /// that the rebuild sees every item's last use.
    fn reserve(&mut self) {
        if self.now as usize + 1 >= self.tree.len() {
            self.grow();
        }
    }

    /// Doubles the tree's span of times, rebuilding it from the last uses (linear time).
    fn grow(&mut self) {
        let n = (self.tree.len() - 1).max(1) * 2;
        self.tree = vec![0; n + 1];
        for (t, &item) in self.item_at.iter().enumerate() {
            if self.time_of[item as usize] as usize == t {
                self.tree[t + 1] = 1;
            }
        }
        for i in 1..=n {
            let j = i + (i & i.wrapping_neg());
            if j <= n {
                self.tree[j] += self.tree[i];
            }
        }
    }

    fn add(&mut self, time: u32, delta: i32) {
        let mut i = time as usize + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// Marks at times `0..=time`.
    fn prefix(&self, time: u32) -> u32 {
        let (mut i, mut sum) = (time as usize + 1, 0);
        while i > 0 {
            sum += self.tree[i];
            i &= i - 1;
        }
        sum
    }

    /// Stamps `item` with the next time. The caller checks [`room`](Self::room).
    fn stamp(&mut self, item: u32) {
        let t = self.now;
        self.now += 1;
        self.item_at.push(item);
        self.time_of[item as usize] = t;
        self.add(t, 1);
    }

    /// A new item, used now; returns its index.
    pub(crate) fn introduce(&mut self) -> u32 {
        self.reserve();
        let item = self.time_of.len() as u32;
        self.time_of.push(0);
        self.live += 1;
        self.stamp(item);
        item
    }

    /// The rank of `item` (items used since its last use), which is then used now.
    pub(crate) fn use_item(&mut self, item: u32) -> u32 {
        self.reserve();
        let t = self.time_of[item as usize];
        let rank = self.live - self.prefix(t);
        self.add(t, -1);
        self.stamp(item);
        rank
    }

    /// The item of rank `rank`, which is then used now; `None` if there is no such rank.
    pub(crate) fn use_rank(&mut self, rank: u32) -> Option<u32> {
        if rank >= self.live {
            return None;
        }
        self.reserve();
        // The (live - rank)-th mark from the oldest: descend the tree.
        let mut want = self.live - rank;
        let (mut pos, mut step) = (0usize, self.tree.len().next_power_of_two() >> 1);
        while step > 0 {
            let next = pos + step;
            if next < self.tree.len() && self.tree[next] < want {
                want -= self.tree[next];
                pos = next;
            }
            step >>= 1;
        }
        let item = *self.item_at.get(pos)?;
        self.add(pos as u32, -1);
        self.stamp(item);
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_match_a_move_to_front_list() {
        let uses = [0u32, 1, 2, 0, 0, 2, 1, 3, 1, 0, 3, 3, 2];
        let mut r = Recency::with_uses(uses.len() + 4);
        let mut list: Vec<u32> = Vec::new();
        let mut back = Recency::with_uses(uses.len() + 4);
        for &u in &uses {
            match list.iter().position(|&x| x == u) {
                Some(rank) => {
                    list.remove(rank);
                    assert_eq!(r.use_item(u), rank as u32);
                    assert_eq!(back.use_rank(rank as u32), Some(u));
                }
                None => {
                    assert_eq!(r.introduce(), u);
                    assert_eq!(back.introduce(), u);
                }
            }
            list.insert(0, u);
        }
        assert_eq!(back.use_rank(4), None);
    }

    #[test]
    fn growing_keeps_the_ranks() {
        // 10 000 uses of 100 items cycling: every use after the first round has rank 99,
        // across the tree's doublings.
        let mut r = Recency::with_uses(10_000);
        for i in 0..10_000u32 {
            if i < 100 {
                assert_eq!(r.introduce(), i);
            } else {
                assert_eq!(r.use_item(i % 100), 99);
            }
        }
        assert_eq!(r.room(), 0);
    }
}
