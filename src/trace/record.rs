//! A run's trace as the interceptor wrote it: `trace-<pid>.jsonl` per process (one JSON object a
//! line: `process`, `source`, `build` (one that failed), `launch`, `read`) and each buffer's bytes
//! in `<pid>-<n>.bin`. The processes of a run (a program that forks) are taken in the order they
//! first called OpenCL; each process's steps are also split by the thread that made them into
//! streams, each in program order, which `compare` pairs across runs.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

/// Every step of one run, in order.
#[derive(Debug, Default)]
pub struct Trace {
    /// Every step, process after process.
    pub steps: Vec<Step>,
    /// The steps of each thread of each process, as indices into `steps`.
    pub streams: Vec<Stream>,
    /// Program sources created, as (content hash, substituted).
    pub sources: Vec<(String, bool)>,
    /// Program builds that failed.
    pub failed_builds: Vec<FailedBuild>,
}

/// A build that failed: the OpenCL error, whether it had the migrated run's options, the end of
/// the driver's log.
#[derive(Debug, Clone)]
pub struct FailedBuild {
    pub status: i64,
    pub migrated: bool,
    pub log: String,
}

/// The steps one thread of one process made.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    /// The process's command line.
    pub command: String,
    /// Which process of this command line (in the order they started), and which thread of it.
    pub process: usize,
    pub thread: usize,
    pub steps: Vec<usize>,
}

/// A kernel launch, after it finished, or a read the host made.
#[derive(Debug)]
pub enum Step {
    Launch(Launch),
    Read(Buffer),
}

#[derive(Debug)]
pub struct Launch {
    pub kernel: String,
    /// Device time from the launch's profiling event, in nanoseconds (0 when the queue had no profiling).
    pub ns: u64,
    /// Offset, global and local sizes (`None` when the host passed NULL).
    pub sizes: [Option<Vec<usize>>; 3],
    pub args: Vec<Arg>,
}

#[derive(Debug)]
pub enum Arg {
    /// A `__global` buffer the kernel may write, as it was after the launch.
    Buffer(Buffer),
    /// A scalar's bytes, as hex.
    Scalar(String),
    /// `__local` memory of this many bytes.
    Local(usize),
    /// A pointer to memory the kernel cannot write (its handle is not compared), or an argument
    /// the interceptor could not read.
    Other,
}

#[derive(Debug, Clone)]
pub struct Buffer {
    /// The OpenCL C type, `float*` (empty for a host read, and without argument information).
    pub type_name: String,
    /// The buffer object's handle in this process (which launch wrote what the host reads).
    pub mem: String,
    pub data: Vec<u8>,
}

#[derive(Deserialize)]
#[serde(tag = "ev", rename_all = "lowercase")]
enum Event {
    Process {
        t: u64,
        #[serde(default)]
        cmd: String,
    },
    Source {
        hash: String,
        replaced: bool,
    },
    Build {
        status: i64,
        migrated: bool,
        log: String,
    },
    Launch {
        #[serde(default)]
        thread: usize,
        kernel: String,
        ns: u64,
        offset: Option<Vec<usize>>,
        global: Option<Vec<usize>>,
        local: Option<Vec<usize>>,
        args: Vec<ArgEvent>,
    },
    Read {
        #[serde(default)]
        thread: usize,
        mem: String,
        blob: u64,
    },
}

#[derive(Deserialize)]
struct ArgEvent {
    #[serde(rename = "type", default)]
    type_name: String,
    #[serde(default)]
    mem: String,
    blob: Option<u64>,
    value: Option<String>,
    local: Option<usize>,
}

/// Reads the trace the interceptor wrote into `dir`.
pub fn read(dir: &Path) -> Result<Trace, String> {
    let mut processes = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy().to_string();
        if let Some(pid) = name.strip_prefix("trace-").and_then(|n| n.strip_suffix(".jsonl")) {
            processes.push(read_process(dir, pid, &path)?);
        }
    }
    processes.sort_by_key(|(start, _, _)| *start);
    let mut trace = Trace::default();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (_, command, process) in processes {
        let ordinal = seen.entry(command.clone()).or_default();
        for stream in process.streams {
            let steps = stream.steps.iter().map(|i| i + trace.steps.len()).collect();
            trace.streams.push(Stream { command: command.clone(), process: *ordinal, steps, ..stream });
        }
        *ordinal += 1;
        trace.steps.extend(process.steps);
        trace.sources.extend(process.sources);
        trace.failed_builds.extend(process.failed_builds);
    }
    Ok(trace)
}

/// Puts step `index` in the stream of `thread`.
fn add_to_stream(streams: &mut Vec<Stream>, thread: usize, index: usize) {
    match streams.iter_mut().find(|s| s.thread == thread) {
        Some(stream) => stream.steps.push(index),
        None => streams.push(Stream { thread, steps: vec![index], ..Stream::default() }),
    }
}

fn read_process(dir: &Path, pid: &str, path: &Path) -> Result<(u64, String, Trace), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let blob = |n: u64| -> Result<Vec<u8>, String> {
        let file = dir.join(format!("{pid}-{n}.bin"));
        std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))
    };
    let (mut start, mut command, mut trace) = (u64::MAX, String::new(), Trace::default());
    for (number, line) in text.lines().enumerate() {
        // A process killed mid-line leaves its last line unfinished: what came before still counts.
        let Ok(event) = serde_json::from_str::<Event>(line) else {
            if number + 1 == text.lines().count() {
                break;
            }
            return Err(format!("{}:{}: not a trace record", path.display(), number + 1));
        };
        match event {
            Event::Process { t, cmd } => {
                start = start.min(t);
                command = cmd;
            }
            Event::Source { hash, replaced } => trace.sources.push((hash, replaced)),
            Event::Build { status, migrated, log } => trace.failed_builds.push(FailedBuild { status, migrated, log }),
            Event::Read { thread, mem, blob: n } => {
                add_to_stream(&mut trace.streams, thread, trace.steps.len());
                trace.steps.push(Step::Read(Buffer { type_name: String::new(), mem, data: blob(n)? }))
            }
            Event::Launch { thread, kernel, ns, offset, global, local, args } => {
                let args = args.into_iter().map(|a| arg(a, &blob)).collect::<Result<_, _>>()?;
                add_to_stream(&mut trace.streams, thread, trace.steps.len());
                trace.steps.push(Step::Launch(Launch { kernel, ns, sizes: [offset, global, local], args }));
            }
        }
    }
    Ok((start, command, trace))
}

fn arg(event: ArgEvent, blob: &dyn Fn(u64) -> Result<Vec<u8>, String>) -> Result<Arg, String> {
    Ok(match (event.blob, event.value, event.local) {
        (Some(n), _, _) => Arg::Buffer(Buffer { type_name: event.type_name, mem: event.mem, data: blob(n)? }),
        (None, Some(value), _) => Arg::Scalar(value),
        (None, None, Some(size)) => Arg::Local(size),
        _ => Arg::Other,
    })
}
