//! Typed keys and ids shared by the stages that work across a batch, the
//! one union-find they group them with, and the one interner that keeps
//! facts repeated across units once.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::hash::Hash;
use std::ops::{Index, IndexMut};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A unit of a batch: its index in the batch's units, so ids order as the units do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnitId(pub usize);

impl UnitId {
    /// The ids of a batch of `count` units, in order.
    pub fn all(count: usize) -> impl Iterator<Item = UnitId> {
        (0..count).map(UnitId)
    }

    /// Per-unit items (the units themselves, or anything kept per unit) with their ids.
    pub fn enumerate<T>(items: &[T]) -> impl Iterator<Item = (UnitId, &T)> {
        items.iter().enumerate().map(|(u, item)| (UnitId(u), item))
    }
}

/// Per-unit items (`&[Unit]`, `Vec<BTreeSet<SetId>>`, ...) indexed by unit.
impl<T> Index<UnitId> for [T] {
    type Output = T;
    fn index(&self, id: UnitId) -> &T {
        &self[id.0]
    }
}

impl<T> IndexMut<UnitId> for [T] {
    fn index_mut(&mut self, id: UnitId) -> &mut T {
        &mut self[id.0]
    }
}

impl<T> Index<UnitId> for Vec<T> {
    type Output = T;
    fn index(&self, id: UnitId) -> &T {
        &self[id.0]
    }
}

impl<T> IndexMut<UnitId> for Vec<T> {
    fn index_mut(&mut self, id: UnitId) -> &mut T {
        &mut self[id.0]
    }
}

/// A file of a batch: its canonical path, interned once (`Files`). Ids
/// order as the paths do, so maps keyed by them iterate in path order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A file's bytes, read once and shared: by the units including it, and
/// by the plan that edits it (`Plan::originals`).
pub type SharedText = std::sync::Arc<std::sync::OnceLock<Vec<u8>>>;

/// The bytes of a `SharedText` (none while unread or unreadable).
pub fn bytes(text: &SharedText) -> &[u8] {
    text.get().map_or(&[], Vec::as_slice)
}

/// The canonical paths of every file of a batch's units, each once, sorted:
/// a file's id is its place in that order.
#[derive(Debug, Clone, Default)]
pub struct Files {
    paths: Vec<PathBuf>,
    /// Per file, its bytes once a unit reads them: a header every unit
    /// includes is held once per batch, not once per unit.
    texts: Vec<SharedText>,
}

impl Files {
    pub fn new(paths: BTreeSet<PathBuf>) -> Files {
        let texts = paths.iter().map(|_| Default::default()).collect();
        Files { paths: paths.into_iter().collect(), texts }
    }

    /// Where the units of the batch keep a file's bytes, read by the first that needs them.
    pub fn text(&self, id: FileId) -> SharedText {
        self.texts[id.0 as usize].clone()
    }

    /// The id of a canonical path, if the batch has it.
    pub fn id(&self, path: &Path) -> Option<FileId> {
        self.paths.binary_search_by(|p| p.as_path().cmp(path)).ok().map(|i| FileId(i as u32))
    }

    /// The canonical path of a file.
    pub fn path(&self, id: FileId) -> &Path {
        &self.paths[id.0 as usize]
    }
}

/// A declaration (or definition, or program-scope variable) across the
/// units of a batch: its file and its name's byte offset. Ordered by file
/// (in path order), then offset, so maps keyed by it iterate in source order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeclKey {
    pub file: FileId,
    pub offset: u32,
}

impl DeclKey {
    pub fn new(file: FileId, offset: u32) -> DeclKey {
        DeclKey { file, offset }
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

/// A value's hash, for keys kept by content within a process (`DefaultHasher`'s
/// fixed keys: the same value hashes alike in every run of the same build).
pub fn hash_of(value: &impl Hash) -> u64 {
    use std::hash::Hasher;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// What tells a file changed since it was seen: its size and modification time.
pub type Stamp = (u64, std::time::SystemTime);

/// A file's stamp; `None` when it cannot be read (gone, or only an overlay provides it).
pub fn stamp(path: &Path) -> Option<Stamp> {
    let metadata = std::fs::metadata(path).ok()?;
    Some((metadata.len(), metadata.modified().ok()?))
}

/// `items` as a shared slice: the equal one already in `kept`, else a new
/// one, kept there. Facts every unit including a header repeats are held
/// once per batch this way.
pub fn intern<T: Hash + Eq, S: std::hash::BuildHasher>(kept: &mut HashSet<Arc<[T]>, S>, items: Vec<T>) -> Arc<[T]> {
    if let Some(same) = kept.get(items.as_slice()) {
        return same.clone();
    }
    let items: Arc<[T]> = items.into();
    kept.insert(items.clone());
    items
}

/// `value`, or the equal one `kept` already holds: equal values kept once.
pub fn intern_value<T: Hash + Eq, S: std::hash::BuildHasher>(kept: &mut HashSet<Arc<T>, S>, value: T) -> Arc<T> {
    if let Some(same) = kept.get(&value) {
        return same.clone();
    }
    let value = Arc::new(value);
    kept.insert(value.clone());
    value
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

    #[test]
    fn equal_values_are_interned_once() {
        let mut kept = HashSet::new();
        let a = intern_value(&mut kept, vec!["-O0".to_string()]);
        let b = intern_value(&mut kept, vec!["-O0".to_string()]);
        let c = intern_value(&mut kept, vec!["-O2".to_string()]);
        assert!(Arc::ptr_eq(&a, &b) && !Arc::ptr_eq(&a, &c));
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn file_ids_order_as_their_paths() {
        let paths: BTreeSet<PathBuf> = ["/b/x.cl", "/a/z.h", "/a/y/w.cl", "/a-b.cl"].into_iter().map(PathBuf::from).collect();
        let files = Files::new(paths.clone());
        let ids: Vec<FileId> = paths.iter().map(|p| files.id(p).unwrap()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        for p in &paths {
            assert_eq!(files.path(files.id(p).unwrap()), p.as_path());
        }
        assert_eq!(files.id(Path::new("/c.cl")), None);
    }
}
