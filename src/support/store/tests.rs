//! The store's checks on read, its bound, and its records.

use super::*;

fn store(dir: &Path, max_bytes: u64) -> Store {
    Store::open(StoreConfig { dir: dir.to_path_buf(), remote: None, max_bytes }, b"stamp".to_vec()).unwrap()
}

fn key(store: &Store, part: &str) -> Key {
    let mut builder = store.key("test");
    builder.bytes(part.as_bytes());
    builder.finish()
}

/// What is put is got back; another key, or another build's stamp, misses.
#[test]
fn entries_answer_their_own_key_and_build() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), 1 << 20);
    store.put(&key(&store, "a"), b"payload a");
    assert_eq!(store.get(&key(&store, "a")).as_deref(), Some(&b"payload a"[..]));
    assert_eq!(store.get(&key(&store, "b")), None);
    let other_build =
        Store::open(StoreConfig { dir: dir.path().to_path_buf(), remote: None, max_bytes: 1 << 20 }, b"other".to_vec());
    let other_build = other_build.unwrap();
    assert_eq!(other_build.get(&key(&other_build, "a")), None);
}

/// Length prefixes keep parts apart: ("ab", "c") and ("a", "bc") are two keys.
#[test]
fn parts_do_not_run_together() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), 1 << 20);
    let mut one = store.key("k");
    one.bytes(b"ab").bytes(b"c");
    let mut two = store.key("k");
    two.bytes(b"a").bytes(b"bc");
    assert_ne!(one.finish(), two.finish());
}

/// A truncated or altered payload, a record of another key, and a record cut short
/// are misses, never results; the bad record is removed.
#[test]
fn corrupt_entries_are_misses() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), 1 << 20);
    let (a, b) = (key(&store, "a"), key(&store, "b"));
    store.put(&a, b"0123456789");
    let payload = dir.path().join("cas").join(sha256_hex(b"0123456789"));
    std::fs::write(&payload, b"01234").unwrap();
    assert_eq!(store.get(&a), None);
    assert!(!dir.path().join("ac").join(a.hex()).exists());
    std::fs::write(&payload, b"0123456789").unwrap();
    store.put(&a, b"0123456789");
    std::fs::write(&payload, b"0123456788").unwrap();
    assert_eq!(store.get(&a), None);
    // a's record copied to b's name answers a, not b.
    store.put(&a, b"0123456789");
    std::fs::copy(dir.path().join("ac").join(a.hex()), dir.path().join("ac").join(b.hex())).unwrap();
    assert_eq!(store.get(&b), None);
    let record = std::fs::read(dir.path().join("ac").join(a.hex())).unwrap();
    std::fs::write(dir.path().join("ac").join(a.hex()), &record[..record.len() - 3]).unwrap();
    assert_eq!(store.get(&a), None);
}

/// Past its bound, the directory loses its least recently used entries first.
#[test]
fn trimming_keeps_what_was_used_last() {
    let dir = tempfile::tempdir().unwrap();
    let store = store(dir.path(), 3000);
    let keys: Vec<Key> = (0..8).map(|i| key(&store, &i.to_string())).collect();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for (i, key) in keys.iter().enumerate() {
        store.put(key, &vec![i as u8; 500]);
        for sub in ["ac", "cas"] {
            for entry in std::fs::read_dir(dir.path().join(sub)).unwrap() {
                let file = std::fs::File::options().append(true).open(entry.unwrap().path()).unwrap();
                file.set_modified(old - std::time::Duration::from_secs(100 - i as u64)).unwrap();
            }
        }
    }
    assert!(store.get(&keys[0]).is_some());
    store.trim();
    let total: u64 = objects(dir.path()).iter().map(|(_, size, _)| size).sum();
    assert!(total <= 3000 / 4 * 3, "{total} bytes left");
    assert!(store.get(&keys[0]).is_some(), "the entry used last stays");
    assert!(store.get(&keys[1]).is_none(), "an entry not used since it was stored goes");
}

/// `clean` removes what the store put in its directory and says what it held;
/// a directory it never marked is left as it is.
#[test]
fn clean_removes_what_the_store_put_there() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cache");
    let store = store(&root, 1 << 20);
    store.put(&key(&store, "a"), b"one");
    store.put(&key(&store, "b"), b"two!");
    let (objects, bytes) = clean(&root).unwrap().unwrap();
    assert_eq!(objects, 4);
    assert!(bytes > 7);
    assert!(!root.exists());
    assert_eq!(clean(&root).unwrap(), Err(NotCleaned::Absent));
    std::fs::create_dir_all(root.join("ac")).unwrap();
    std::fs::write(root.join("ac/file"), "theirs").unwrap();
    assert_eq!(clean(&root).unwrap(), Err(NotCleaned::NotACache));
    assert!(root.join("ac/file").exists());
}

/// A directory holding other things is no store's: nothing is written there.
#[test]
fn a_directory_of_other_files_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("theirs.txt"), "theirs").unwrap();
    let store = store(dir.path(), 1 << 20);
    store.put(&key(&store, "a"), b"one");
    assert_eq!(store.get(&key(&store, "a")), None);
    assert!(!dir.path().join("ac").exists());
    assert!(store.warnings()[0].contains("holds other files"), "{:?}", store.warnings());
}

/// A URL that is not http(s) is refused when the store opens.
#[test]
fn remote_urls_are_checked() {
    assert!(Remote::new("http://localhost:9/cache").is_ok());
    assert!(Remote::new("https://cache.example/").is_ok());
    for bad in ["localhost:8080", "ftp://host", "http://", "http:///path"] {
        assert!(Remote::new(bad).is_err(), "{bad}");
    }
}
