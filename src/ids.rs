//! Typed keys and ids shared by the stages that work across a batch, and
//! the one union-find they group them with.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A declaration (or definition, or program-scope variable) across the
/// units of a batch: its file's canonical path and its name's byte offset.
/// Ordered by file, then offset, so maps keyed by it iterate in source order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeclKey {
    pub file: PathBuf,
    pub offset: u32,
}

impl DeclKey {
    pub fn new(file: &Path, offset: u32) -> DeclKey {
        DeclKey { file: file.to_path_buf(), offset }
    }
}

/// A change set of a plan: the fixes that stand or fall together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SetId(pub usize);

/// Disjoint sets of keys. The smaller key of two joined sets leads, so what
/// leads a set never depends on the order things were joined in.
#[derive(Debug, Clone)]
pub struct UnionFind<K: Ord + Clone> {
    parent: BTreeMap<K, K>,
}

impl<K: Ord + Clone> Default for UnionFind<K> {
    fn default() -> Self {
        UnionFind { parent: BTreeMap::new() }
    }
}

impl<K: Ord + Clone> UnionFind<K> {
    /// The key leading `key`'s set (a key seen for the first time is a set of its own).
    pub fn find(&mut self, key: K) -> K {
        let parent = self.parent.entry(key.clone()).or_insert_with(|| key.clone()).clone();
        if parent == key {
            return key;
        }
        let root = self.find(parent);
        self.parent.insert(key, root.clone());
        root
    }

    /// Joins the sets of `a` and `b`.
    pub fn union(&mut self, a: K, b: K) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            let (low, high) = if a < b { (a, b) } else { (b, a) };
            self.parent.insert(high, low);
        }
    }

    /// Every set, by its leading key.
    pub fn sets(&mut self) -> BTreeMap<K, BTreeSet<K>> {
        let keys: Vec<K> = self.parent.keys().cloned().collect();
        let mut out: BTreeMap<K, BTreeSet<K>> = BTreeMap::new();
        for key in keys {
            let root = self.find(key.clone());
            out.entry(root).or_default().insert(key);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_led_by_their_smallest_key_whatever_the_order_of_joins() {
        let mut a = UnionFind::default();
        a.union(5, 3);
        a.union(3, 9);
        a.find(7);
        let mut b = UnionFind::default();
        b.find(7);
        b.union(9, 5);
        b.union(5, 3);
        for uf in [&mut a, &mut b] {
            let sets = uf.sets();
            assert_eq!(sets.keys().copied().collect::<Vec<_>>(), vec![3, 7]);
            assert_eq!(sets[&3], BTreeSet::from([3, 5, 9]));
            assert_eq!(uf.find(9), 3);
        }
    }
}
