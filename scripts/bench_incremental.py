"""scripts/bench --incremental: what the store saves on a generated headers tree.

On one tree, with clasp's cache directory in a scratch folder, times
`clasp migrate --check -j N`:
  cold       a fresh cache directory (every unit loaded and verified, all stored);
  unchanged  the same run again (its output replayed);
  one edit   after a comment is added at the top of one kernel file (that unit
             loaded and verified again, every other one read back);
  shards     `--shard K/4`, K = 1..4, each with a cache directory of its own, sharing
             an nginx WebDAV server (`--remote-cache`), one after the other;
  final      a fresh cache directory and the server: prints from the shards' verdicts.
and checks that the cold, unchanged and final runs print what a `--no-cache` run
prints, byte for byte. Needs nginx (scripts/setup installs nginx-light).
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time


def start_server(folder):
    """An nginx with WebDAV PUT on a free port, serving `folder`/data: (process, url)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = os.path.join(folder, "data")
    os.makedirs(data)
    temps = " ".join(f"{kind}_temp_path {folder}/{kind};" for kind in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    config = (
        f"daemon off; master_process off; pid {folder}/nginx.pid; error_log {folder}/error.log;\n"
        f"events {{}}\nhttp {{ access_log off; {temps}\n"
        f"server {{ listen 127.0.0.1:{port}; root {data};\n"
        "location / { dav_methods PUT; create_full_put_path on; client_max_body_size 512m; } } }\n"
    )
    with open(os.path.join(folder, "nginx.conf"), "w") as f:
        f.write(config)
    server = subprocess.Popen(["nginx", "-p", folder, "-c", os.path.join(folder, "nginx.conf"), "-e", f"{folder}/error.log"])
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.025)
    server.kill()
    raise SystemExit("nginx did not start: " + open(f"{folder}/error.log").read())


def folder_size(folder):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(folder) for f in fs)


def run(tree, clasp, jobs):
    """The table for `tree` at -j`jobs`."""
    scratch = tempfile.mkdtemp(prefix="clasp-incremental-")

    def clasp_run(*flags):
        command = [clasp, "migrate", "--check", "--quiet", "-j", str(jobs), *tree.flags, *flags, tree.target]
        start = time.perf_counter()
        r = subprocess.run(command, cwd=tree.root, capture_output=True)
        elapsed = time.perf_counter() - start
        if r.returncode == 2:
            raise SystemExit("clasp failed:\n" + r.stderr.decode(errors="replace")[-3000:])
        return elapsed, r.stdout

    def cache(name):
        return ["--cache-dir", os.path.join(scratch, name)]

    server, url = start_server(os.path.join(scratch, "server"))
    try:
        _, expected = clasp_run("--no-cache")
        rows = [("cold", *clasp_run(*cache("local")))]
        rows.append(("unchanged", *clasp_run(*cache("local"))))
        edited = os.path.join(tree.root, tree.paths[0])
        with open(edited) as f:
            text = f.read()
        with open(edited, "w") as f:
            f.write("/* edited */\n" + text)
        rows.append(("one edit", clasp_run(*cache("local"))[0], None))
        with open(edited, "w") as f:
            f.write(text)
        for k in range(1, 5):
            rows.append((f"shard {k}/4", clasp_run(*cache(f"runner-{k}"), "--remote-cache", url, "--shard", f"{k}/4")[0], None))
        rows.append(("final", *clasp_run(*cache("final"), "--remote-cache", url)))
    finally:
        server.kill()
        server.wait()
    cold = rows[0][1]
    print(f"\nthe store at -j{jobs} ({len(tree.paths)} units; cache directory after the cold run: "
          f"{folder_size(os.path.join(scratch, 'local')) / 2**20:.1f} MiB)")
    print(f"{'run':>12} {'s':>8} {'/cold':>6} {'output':>10}")
    for name, elapsed, stdout in rows:
        same = "" if stdout is None else ("identical" if stdout == expected else "DIFFERS")
        print(f"{name:>12} {elapsed:>8.2f} {elapsed / cold:>6.3f} {same:>10}")
    shutil.rmtree(scratch, ignore_errors=True)
