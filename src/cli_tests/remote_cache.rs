//! `--remote-cache` against a real cache server: nginx from Debian's
//! packages (scripts/setup installs it) serving WebDAV `PUT` and `GET`
//! under `/ac/` and `/cas/`, started by each test on a free port. Shards on
//! runners with their own cache directories share verdicts through it; a
//! server that is down or answers errors is a warning and local work.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use crate::support::clasp_in;
use crate::verdicts::{demo, run, uncached};

/// How a test's server answers.
#[derive(Clone, Copy, PartialEq)]
enum Serves {
    /// GET, and PUT through WebDAV.
    ReadWrite,
    /// GET; a PUT is refused (403), as a cache a runner may only read.
    ReadOnly,
    /// 500 to everything.
    Errors,
}

/// An nginx serving a folder over HTTP.
struct CacheServer {
    child: Child,
    folder: tempfile::TempDir,
    url: String,
}

impl CacheServer {
    fn start(serves: Serves) -> CacheServer {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path().join("data");
        std::fs::create_dir_all(&root).unwrap();
        CacheServer::serving(serves, folder, &root)
    }

    /// A server of `data`, another server's folder.
    fn serving(serves: Serves, folder: tempfile::TempDir, root: &Path) -> CacheServer {
        let port = free_port();
        let handler = match serves {
            Serves::Errors => "return 500;",
            Serves::ReadWrite => "dav_methods PUT; create_full_put_path on; client_max_body_size 64m;",
            Serves::ReadOnly => "limit_except GET { deny all; }",
        };
        let temp = |name: &str| folder.path().join(name).display().to_string();
        let config = format!(
            "daemon off; master_process off; pid {pid}; error_log {log};\n\
             events {{}}\n\
             http {{ access_log {access}; client_body_temp_path {body}; proxy_temp_path {proxy};\n\
             fastcgi_temp_path {fastcgi}; uwsgi_temp_path {uwsgi}; scgi_temp_path {scgi};\n\
             server {{ listen 127.0.0.1:{port}; root {root}; location / {{ {handler} }} }} }}\n",
            pid = temp("nginx.pid"),
            log = temp("error.log"),
            access = temp("access.log"),
            body = temp("body"),
            proxy = temp("proxy"),
            fastcgi = temp("fastcgi"),
            uwsgi = temp("uwsgi"),
            scgi = temp("scgi"),
            root = root.display(),
        );
        let config_path = folder.path().join("nginx.conf");
        std::fs::write(&config_path, config).unwrap();
        let nginx = ["/usr/sbin/nginx", "nginx"].into_iter().find(|n| Command::new(n).arg("-v").output().is_ok());
        let nginx = nginx.expect("nginx is installed (scripts/setup)");
        let child = Command::new(nginx)
            .arg("-p")
            .arg(folder.path())
            .arg("-c")
            .arg(&config_path)
            .arg("-e")
            .arg(temp("error.log"))
            .spawn()
            .expect("start nginx");
        let server = CacheServer { child, folder, url: format!("http://127.0.0.1:{port}") };
        server.wait_listening(port);
        server
    }

    fn wait_listening(&self, port: u16) {
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        let log = std::fs::read_to_string(self.folder.path().join("error.log")).unwrap_or_default();
        panic!("nginx did not start: {log}");
    }

    /// The objects stored under `sub` (`ac`, `cas`).
    fn stored(&self, sub: &str) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(self.folder.path().join("data").join(sub)) else { return Vec::new() };
        entries.map(|e| e.unwrap().path()).collect()
    }

    fn requests(&self, method: &str) -> usize {
        let log = std::fs::read_to_string(self.folder.path().join("access.log")).unwrap_or_default();
        log.lines().filter(|line| line.contains(&format!("\"{method} /"))).count()
    }
}

impl Drop for CacheServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn dir_arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn shards_on_separate_runners_share_verdicts_through_the_server() {
    let server = CacheServer::start(Serves::ReadWrite);
    let dir = demo();
    let runners = tempfile::tempdir().unwrap();
    let mut sharded = 0;
    for k in 1..=4 {
        // Each shard has a directory of its own: only the server is shared.
        let own = runners.path().join(format!("runner-{k}"));
        let shard = format!("{k}/4");
        let args = ["--check", "--cache-dir", dir_arg(&own), "--remote-cache", &server.url, "--shard", &shard, "."];
        let ((code, stdout), compiles) = run(dir.path(), &args);
        assert_eq!((code, stdout.as_str()), (0, ""));
        sharded += compiles;
    }
    assert!(sharded > 0);
    assert!(!server.stored("ac").is_empty() && !server.stored("cas").is_empty());
    // Every payload is named by its own digest, as a Bazel cache server checks.
    for payload in server.stored("cas") {
        use sha2::Digest;
        let digest: String = sha2::Sha256::digest(std::fs::read(&payload).unwrap()).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(payload.file_name().unwrap().to_str().unwrap(), digest);
    }
    let fresh = runners.path().join("final");
    let ((code, stdout), compiles) =
        run(dir.path(), &["--check", "--cache-dir", dir_arg(&fresh), "--remote-cache", &server.url, "."]);
    assert_eq!(compiles, 0, "the final run found every verdict on the server");
    assert_eq!((code, stdout), uncached(dir.path(), &["--check", "."]));
    assert!(server.requests("GET") > 0 && server.requests("PUT") > 0);
}

#[test]
fn a_server_that_is_down_or_failing_is_a_warning_and_local_work() {
    let dir = demo();
    let expected = uncached(dir.path(), &["--check", "."]);
    let broken = CacheServer::start(Serves::Errors);
    let down = format!("http://127.0.0.1:{}", free_port());
    for url in [down.as_str(), broken.url.as_str()] {
        let cache = tempfile::tempdir().unwrap();
        let args = ["migrate", "--check", "--cache-dir", dir_arg(cache.path()), "--remote-cache", url, "."];
        let (code, stdout, stderr) = clasp_in(dir.path(), &args);
        assert_eq!((code, String::from_utf8(stdout).unwrap()), expected.clone(), "{stderr}");
        let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("remote cache")).collect();
        assert_eq!(warnings.len(), 1, "said once: {stderr}");
        assert!(warnings[0].contains("warning") && warnings[0].contains(url) && warnings[0].contains("working without it"));
        // The directory still serves: a second run verifies nothing.
        let ((code, stdout), compiles) =
            run(dir.path(), &["--check", "--cache-dir", dir_arg(cache.path()), "--remote-cache", url, "."]);
        assert_eq!(((code, stdout), compiles), (expected.clone(), 0));
    }
    assert!(broken.requests("GET") >= 1, "the broken server was asked");
}

#[test]
fn a_server_that_refuses_puts_is_still_read() {
    let dir = demo();
    let writable = CacheServer::start(Serves::ReadWrite);
    let runners = tempfile::tempdir().unwrap();
    let first = runners.path().join("first");
    run(dir.path(), &["--check", "--cache-dir", dir_arg(&first), "--remote-cache", &writable.url, "."]);
    let data = writable.folder.path().join("data");
    let read_only = CacheServer::serving(Serves::ReadOnly, tempfile::tempdir().unwrap(), &data);
    let blur = dir.path().join("blur.cl");
    std::fs::write(&blur, std::fs::read_to_string(&blur).unwrap().replacen("{", "{ /* edited */", 1)).unwrap();
    let second = runners.path().join("second");
    let args = ["migrate", "--check", "--timings", "--cache-dir", dir_arg(&second), "--remote-cache", &read_only.url, "."];
    let (code, stdout, stderr) = clasp_in(dir.path(), &args);
    assert_eq!((code, String::from_utf8(stdout).unwrap()), uncached(dir.path(), &["--check", "."]));
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains("remote cache")).collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(said[0].contains("refused PUT") && said[0].contains("reading it still"), "{stderr}");
    let (_, all) = run(dir.path(), &["--check", "--no-cache", "."]);
    let compiles = crate::verdicts::compiles(&stderr);
    assert!(compiles > 0 && compiles < all, "only the edited unit was verified: {compiles} of {all}");
}
