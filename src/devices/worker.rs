//! The device worker: every OpenCL call runs in a child process, the
//! `clasp-device-worker` binary installed beside `clasp`, given one JSON
//! request on stdin and answering one JSON line on stdout.
//!
//! Why a process, and why not `clasp` itself: a driver brings its own
//! compiler into the process that calls it. Debian's PoCL loads clang 15's
//! libclang-cpp, whose symbols, like clang 19's, carry no version: in a
//! process of `clasp`, which is linked to libclang-cpp 19, PoCL's calls bind
//! to clang 19's functions and its first build crashes (SIGSEGV, measured;
//! listing devices works). The worker binary uses nothing of clang, so the
//! linker leaves libclang-cpp out (libLLVM 19 stays, harmlessly: its
//! symbols are versioned). And in a child, any driver crash is a message
//! for the run, not the end of the migration.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use super::ffi::{self, BuildFailure, ClError, OpenCl};
use super::{Device, Inventory, Platform};

/// Why the device worker gave no answer, or could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// clasp cannot find its own executable, beside which the worker is.
    #[error("cannot find clasp's own executable: {0}")]
    OwnExecutable(#[source] std::io::Error),
    /// No worker binary beside clasp's.
    #[error("no {WORKER} beside {} (it is built and installed with clasp)", clasp.display())]
    Missing { clasp: PathBuf },
    /// The worker could not be started.
    #[error("cannot run the device worker {}: {source}", worker.display())]
    Spawn { worker: PathBuf, source: std::io::Error },
    /// Waiting for the worker failed.
    #[error("the device worker failed: {0}")]
    Wait(#[source] std::io::Error),
    /// The worker's answer does not parse.
    #[error("the device worker's answer is unreadable: {0}")]
    Unreadable(#[source] serde_json::Error),
    /// The worker ended (a driver crashed) before it answered: its status and last stderr lines.
    #[error("the device worker ended without an answer ({status}): an OpenCL driver failed: {}", stderr_tail.join(" | "))]
    NoAnswer { status: std::process::ExitStatus, stderr_tail: Vec<String> },
    /// The worker's own account of why it could not do what was asked (another process's message).
    #[error("{0}")]
    Failed(String),
    /// The worker answered another request than the one asked.
    #[error("the device worker answered another question")]
    OtherAnswer,
    /// In the worker: an OpenCL call failed.
    #[error(transparent)]
    OpenCl(#[from] ClError),
    /// In the worker: a platform listed by the parent is no longer there.
    #[error("a platform is gone")]
    PlatformGone,
    /// In the worker: a device listed by the parent is no longer there.
    #[error("a device is gone")]
    DeviceGone,
}

/// Why the worker could not read its request.
#[derive(Debug, thiserror::Error)]
enum RequestError {
    #[error("{0}")]
    Read(#[from] std::io::Error),
    #[error("{0}")]
    Parse(#[from] serde_json::Error),
}

/// What the parent asks.
#[derive(Debug, Serialize, Deserialize)]
pub enum Request {
    /// Every platform and device.
    List,
    /// Each build, in order.
    Build(Vec<Build>),
}

/// One program built for one device.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Build {
    pub platform_index: usize,
    pub device_index: usize,
    pub source: String,
    pub options: String,
}

/// The device's verdict on one build: accepted or not, with its build log.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Built {
    pub accepted: bool,
    pub log: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum Response {
    List(Inventory),
    Build(Vec<Built>),
    /// The worker could not do what was asked (no loader any more, a device gone).
    Failed(String),
}

/// Marks the response line: a driver may print on stdout too.
const MARK: &str = "clasp-device-worker:";

/// The child's side: one request from stdin, the answer on stdout; exit code 0 unless the answer cannot be written.
pub fn serve(stdin: &mut dyn Read, stdout: &mut dyn Write) -> i32 {
    let mut text = String::new();
    let request: Result<Request, RequestError> =
        stdin.read_to_string(&mut text).map_err(RequestError::from).and_then(|_| Ok(serde_json::from_str(&text)?));
    let response = match request {
        Ok(Request::List) => Response::List(list()),
        // The answer crosses to the parent as JSON: the error as the text it shows.
        Ok(Request::Build(builds)) => build(&builds).map(Response::Build).unwrap_or_else(|e| Response::Failed(e.to_string())),
        Err(e) => Response::Failed(format!("unreadable request: {e}")),
    };
    let line = serde_json::to_string(&response).expect("a response serialises");
    match writeln!(stdout, "{MARK}{line}").and_then(|_| stdout.flush()) {
        Ok(()) => 0,
        Err(_) => 2,
    }
}

/// Every platform and device the loader lists; no loader or no platform is a note.
fn list() -> Inventory {
    let cl = match OpenCl::load() {
        Ok(cl) => cl,
        Err(e) => return Inventory { platforms: Vec::new(), note: Some(format!("no OpenCL ICD loader: {e}")) },
    };
    let platforms = match cl.platforms() {
        Ok(platforms) => platforms,
        Err(e) => return Inventory { platforms: Vec::new(), note: Some(format!("the OpenCL ICD loader failed: {e}")) },
    };
    let platforms: Vec<Platform> = platforms.iter().enumerate().map(|(i, p)| platform(&cl, i, *p)).collect();
    let note = platforms
        .is_empty()
        .then(|| format!("the OpenCL ICD loader ({}) lists no platform: no OpenCL driver is installed", ffi::library_name()));
    Inventory { platforms, note }
}

fn platform(cl: &OpenCl, index: usize, id: ffi::Id) -> Platform {
    let info = |param| cl.platform_info(id, param).map(|b| ffi::text(&b)).unwrap_or_default();
    let (devices, error) = match cl.devices(id) {
        Ok(ids) => (ids.iter().enumerate().map(|(d, device_id)| device(cl, index, d, *device_id)).collect(), None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    Platform {
        name: info(ffi::CL_PLATFORM_NAME),
        vendor: info(ffi::CL_PLATFORM_VENDOR),
        version: info(ffi::CL_PLATFORM_VERSION),
        devices,
        error,
    }
}

fn device(cl: &OpenCl, platform_index: usize, device_index: usize, id: ffi::Id) -> Device {
    let info = |param| cl.device_info(id, param).map(|b| ffi::text(&b)).unwrap_or_default();
    let versions = cl.device_info(id, ffi::CL_DEVICE_OPENCL_C_ALL_VERSIONS).map(|b| ffi::name_versions(&b)).unwrap_or_default();
    let features = cl.device_info(id, ffi::CL_DEVICE_OPENCL_C_FEATURES).map(|b| ffi::name_versions(&b));
    Device {
        name: info(ffi::CL_DEVICE_NAME),
        vendor: info(ffi::CL_DEVICE_VENDOR),
        driver_version: info(ffi::CL_DRIVER_VERSION),
        version: info(ffi::CL_DEVICE_VERSION),
        opencl_c_version: info(ffi::CL_DEVICE_OPENCL_C_VERSION),
        opencl_c_all_versions: versions.iter().map(|(_, major, minor)| format!("{major}.{minor}")).collect(),
        opencl_c_features: features.map(|f| f.into_iter().map(|(name, _, _)| name).collect()),
        compiler_available: cl.device_info(id, ffi::CL_DEVICE_COMPILER_AVAILABLE).and_then(|b| ffi::uint(&b)) == Some(1),
        generic_address_space_support: cl
            .device_info(id, ffi::CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT)
            .and_then(|b| ffi::uint(&b))
            .map(|v| v == 1),
        platform_index,
        device_index,
    }
}

/// Each build on its device (found again by index: ids do not cross processes).
fn build(builds: &[Build]) -> Result<Vec<Built>, WorkerError> {
    let cl = OpenCl::load()?;
    let platforms = cl.platforms()?;
    let mut out = Vec::new();
    for b in builds {
        let platform = *platforms.get(b.platform_index).ok_or(WorkerError::PlatformGone)?;
        let device = *cl.devices(platform)?.get(b.device_index).ok_or(WorkerError::DeviceGone)?;
        out.push(match cl.build(device, &b.source, &b.options) {
            Ok(log) => Built { accepted: true, log },
            Err(BuildFailure::Rejected { log }) => Built { accepted: false, log },
            Err(failure @ BuildFailure::Call(_)) => Built { accepted: false, log: failure.to_string() },
        });
    }
    Ok(out)
}

/// The parent's side: runs a worker in `dir` with `request` and reads its answer;
/// an error says how the worker failed (a driver crash is one).
pub fn ask(request: &Request, dir: &Path) -> Result<Response, WorkerError> {
    let exe = worker_executable()?;
    let mut child = Command::new(&exe)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| WorkerError::Spawn { worker: exe.clone(), source })?;
    let input = serde_json::to_vec(request).expect("a request serialises");
    let mut stdin = child.stdin.take().expect("piped stdin");
    // Written from a thread: a worker filling its stdout pipe before reading all of stdin cannot deadlock us.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().map_err(WorkerError::Wait)?;
    let _ = writer.join();
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The answer counts even if the driver crashes afterwards, at exit.
    match stdout.lines().rev().find_map(|l| l.strip_prefix(MARK)) {
        Some(line) => serde_json::from_str(line).map_err(WorkerError::Unreadable),
        None => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<String> = stderr.lines().rev().take(5).map(String::from).collect();
            Err(WorkerError::NoAnswer { status: output.status, stderr_tail: tail.into_iter().rev().collect() })
        }
    }
}

/// `clasp-device-worker`, beside this executable (or, from a test binary
/// in `target/debug/deps/`, one directory up).
fn worker_executable() -> Result<PathBuf, WorkerError> {
    let exe = std::env::current_exe().map_err(WorkerError::OwnExecutable)?;
    exe.ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join(WORKER))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| WorkerError::Missing { clasp: exe.clone() })
}

const WORKER: &str = "clasp-device-worker";

/// Every platform and device (through a worker).
pub fn inventory() -> Result<Inventory, WorkerError> {
    match ask(&Request::List, Path::new("."))? {
        Response::List(inventory) => Ok(inventory),
        Response::Failed(e) => Err(WorkerError::Failed(e)),
        Response::Build(_) => Err(WorkerError::OtherAnswer),
    }
}

/// Each build's verdict (through a worker running in `dir`).
pub fn builds(builds: Vec<Build>, dir: &Path) -> Result<Vec<Built>, WorkerError> {
    if builds.is_empty() {
        return Ok(Vec::new());
    }
    match ask(&Request::Build(builds), dir)? {
        Response::Build(built) => Ok(built),
        Response::Failed(e) => Err(WorkerError::Failed(e)),
        Response::List(_) => Err(WorkerError::OtherAnswer),
    }
}
