//! The report of a migration: every changed file with its fixes, every
//! refusal, merge, warning and error, and an account of every function.
//! Plain data the batch driver fills and `render`/`sarif` print; it names
//! codes from the registry only.

use std::path::PathBuf;

use serde::Serialize;

use crate::codes::Code;
pub use crate::rules::host_build_options::{BuildCallReport, BuildStatus};
use crate::rules::merge_duplicates::{Member, Unmerged};
pub use crate::rules::{Fix, Refusal, Warning};

/// How one function ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Outcome {
    /// Changed, every parameter that names a space generic can hold (`__global`,
    /// `__local`, a spelled `__private`) made generic; `verified`: recompiled
    /// and its unit's kernels proven equivalent.
    Migrated { verified: bool },
    /// Changed, but some of those parameters keep their space: `kept` lists
    /// each with why (so `migrated` means no such named parameter is left).
    PartlyMigrated { verified: bool, kept: Vec<KeptParameter> },
    /// Nothing to do.
    Unchanged,
    /// Something could change but does not, with a stable reason code.
    Refused { reason: Code, detail: String },
    /// Its changes were to be written (`--write`, `--out-dir`), but its file
    /// could not be (the file's error says why): it is as it was.
    NotWritten,
}

impl Outcome {
    /// Whether some of the function's changes stand (fully or partly migrated).
    pub fn changed(&self) -> bool {
        matches!(self, Outcome::Migrated { .. } | Outcome::PartlyMigrated { .. })
    }
}

/// A parameter of a partly migrated function that keeps its named space, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptParameter {
    pub name: String,
    /// The refusal's or withdrawal's code; absent when nothing was planned for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<Code>,
    pub detail: String,
}

/// A configuration clasp derived to build code `#if` skips in every
/// configuration given (`migrate::discovered`), and what became of it.
#[derive(Debug, Clone, Serialize)]
pub struct DiscoveredConfiguration {
    /// Where the first skipped code it was derived for is.
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub file: PathBuf,
    pub line: u32,
    /// The unit it was derived for (as in `--explain` and errors).
    pub unit: String,
    pub configuration: String,
    /// The options it adds to those of the configuration it comes from.
    pub options: Vec<String>,
    /// `file:line` of each skipped code it was derived for.
    pub enables: Vec<String>,
    /// Loaded, analysed and verified like any configuration (else dropped: `detail` says why).
    pub analysed: bool,
    pub detail: String,
}

/// The outcome of one function definition.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionAccount {
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub file: PathBuf,
    pub line: u32,
    pub col: u32,
    pub name: String,
    pub kernel: bool,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// One file with its changes.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub path: PathBuf,
    #[serde(skip)]
    pub canonical: PathBuf,
    /// The file's bytes as read, and with the edits: every other byte is kept, whatever the encoding.
    #[serde(skip)]
    pub original: Vec<u8>,
    #[serde(skip)]
    pub migrated: Vec<u8>,
    pub fixes: Vec<Fix>,
    /// The configurations (`clasp.toml`) its changes were checked in, every one that builds it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub configurations: Vec<String>,
}

/// An error for one file; the batch goes on. Reported (printed, in JSON
/// and SARIF) as `located` says.
#[derive(Debug, Clone)]
pub struct FileError {
    pub path: PathBuf,
    pub message: String,
}

impl FileError {
    /// The message with every error line about a whole file (`a.cl: error:
    /// cannot read`, the error's own file or another that exists) placed at
    /// its first line and column, so that each starts `file:line:col:
    /// error:` for editors' and CI's problem matchers. Lines already placed,
    /// notes, and `clasp: error:` (about no file) are left as they are.
    pub fn located(&self) -> String {
        let own = self.path.display().to_string();
        let placed = |prefix: &str| {
            let mut parts = prefix.rsplitn(3, ':');
            let numbers = [parts.next(), parts.next()]
                .iter()
                .all(|p| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())));
            numbers && parts.next().is_some()
        };
        let lines: Vec<String> = self
            .message
            .lines()
            .map(|line| match line.split_once(": error: ") {
                Some((prefix, rest))
                    if !placed(prefix) && !prefix.is_empty() && (prefix == own || std::path::Path::new(prefix).is_file()) =>
                {
                    format!("{prefix}:1:1: error: {rest}")
                }
                _ => line.to_string(),
            })
            .collect();
        lines.join("\n")
    }
}

impl Serialize for FileError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut error = serializer.serialize_struct("FileError", 2)?;
        error.serialize_field("path", &crate::settings::paths::shown_path(&self.path))?;
        error.serialize_field("message", &self.located())?;
        error.end()
    }
}

#[derive(Debug, Default, Serialize)]
pub struct Migration {
    /// The batch's units' files: kernel files (each once, whatever its
    /// configurations), embedded kernels and programs (each as one).
    pub files_seen: usize,
    /// The files read as code, each once: kernel files, the headers under
    /// the edit root they include, programs' sources, host files. What the
    /// summary counts: every changed file is among them.
    pub files_read: usize,
    pub changes: Vec<FileChange>,
    pub refusals: Vec<Refusal>,
    pub errors: Vec<FileError>,
    pub warnings: Vec<Warning>,
    /// Notes at their place, for stderr only (a host's build call passing a
    /// vendor option clasp ignores: `ignoring build option ...`), each once.
    #[serde(skip)]
    pub notes: Vec<Warning>,
    /// Every function definition of every analysed file under the paths, in order.
    pub functions: Vec<FunctionAccount>,
    /// Files that could not be parsed or compiled (their functions are unknown).
    #[serde(serialize_with = "crate::settings::paths::serialize_shown_list")]
    pub unanalysable: Vec<PathBuf>,
    /// Configurations derived to build code `#if` skips (`--discover-configurations`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub discovered: Vec<DiscoveredConfiguration>,
    /// Duplicate groups merged into one generic function.
    pub merges: Vec<MergeReport>,
    /// Duplicate groups found but not merged, with why.
    pub unmerged: Vec<Unmerged>,
    /// How each unit keeping changes was proven equivalent (absent without verification).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub proofs: Vec<UnitProof>,
    /// Kernels whose kept result accesses memory through more generic
    /// pointers than the original (lint `residual-generic`), by unit, then kernel.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub residual_generic: Vec<ResidualGeneric>,
    /// Host code: build calls and embedded kernels (absent when the batch read no host file).
    #[serde(skip_serializing_if = "HostReport::is_empty")]
    pub host: HostReport,
    /// Wall time per stage (summed over workers): only when asked for
    /// (`--timings`, `CLASP_TIMINGS`), so that the report of a run is the
    /// same byte for byte every time.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timings: Vec<crate::support::timings::StageTime>,
    /// Whether this run wrote its changes (in place or under `--out-dir`):
    /// the summary says "migrated" then, "would migrate" otherwise (a dry
    /// run, or a write refused as a whole).
    #[serde(skip)]
    pub written: bool,
    /// `--device-check`: each changed program built by each selected device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_check: Option<DeviceCheck>,
    /// The changed programs, as a device compiler would be given them (for `--device-check`).
    #[serde(skip)]
    pub programs: Vec<ChangedProgram>,
    /// With `MigrateOptions::each_set` (`--interactive`): per kept change
    /// set (its number, as in `FixOrigin::set`), the files it alone writes,
    /// rendered by the code that renders `changes`: the diff its review shows.
    #[serde(skip)]
    pub set_changes: std::collections::BTreeMap<usize, Vec<FileChange>>,
    /// Every file the batch read (units, the files they include, host files,
    /// program sources), as named: what a cached result depends on.
    #[serde(skip)]
    pub inputs: std::collections::BTreeSet<PathBuf>,
    /// Changed files (canonical) a write left as they are (one of their group
    /// could not be written): the summary counts only what was written.
    #[serde(skip)]
    pub not_written: std::collections::BTreeSet<PathBuf>,
}

/// The version of the JSON reports' layout: raised when a field changes
/// meaning or goes away (fields may be added without raising it).
pub const JSON_FORMAT_VERSION: u32 = 1;

/// The `"version"` every JSON report starts with: its layout's and clasp's.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Version {
    pub format: u32,
    pub clasp: &'static str,
}

impl Version {
    pub const CURRENT: Version = Version { format: JSON_FORMAT_VERSION, clasp: env!("CARGO_PKG_VERSION") };
}

/// A JSON report: `"version"` first, then the report's own fields.
#[derive(Serialize)]
pub struct Versioned<T: Serialize> {
    pub version: Version,
    #[serde(flatten)]
    pub report: T,
}

impl<T: Serialize> Versioned<T> {
    pub fn new(report: T) -> Versioned<T> {
        Versioned { version: Version::CURRENT, report }
    }
}

/// What clasp found in host files.
#[derive(Debug, Default, Serialize)]
pub struct HostReport {
    /// Host files read.
    pub files: usize,
    pub build_calls: Vec<BuildCallReport>,
    pub embedded: Vec<EmbeddedReport>,
    /// Programs the hosts gather from `#include`d files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<IncludedProgramReport>,
}

impl HostReport {
    pub fn is_empty(&self) -> bool {
        self.files == 0 && self.build_calls.is_empty() && self.embedded.is_empty()
    }
}

/// A program gathered by `#include`, as the JSON report lists it.
#[derive(Debug, Clone, Serialize)]
pub struct IncludedProgramReport {
    /// The host file and the line of the program's creation.
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub file: PathBuf,
    pub line: u32,
    /// Its sources, in order.
    #[serde(serialize_with = "crate::settings::paths::serialize_shown_list")]
    pub sources: Vec<PathBuf>,
    /// The `[[program]]` it is, or the name clasp gave it.
    pub program: String,
    /// No `[[program]]` declares it: clasp inferred it from the host.
    pub inferred: bool,
}

/// A kernel embedded in a host file as a string literal.
#[derive(Debug, Clone, Serialize)]
pub struct EmbeddedReport {
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub file: PathBuf,
    pub line: u32,
    pub status: EmbeddedStatus,
    /// The kernel file it is a generated copy of.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::settings::paths::serialize_shown_option")]
    pub copy_of: Option<PathBuf>,
    pub detail: String,
}

/// What clasp did with an embedded kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EmbeddedStatus {
    Migrated,
    Unchanged,
    Refused,
    /// The literal cannot be decoded (a piece produced by a macro, a format piece) or written back.
    Undecodable,
}

/// How a unit's kernels were proven equivalent to the original's.
#[derive(Debug, Clone, Serialize)]
pub struct UnitProof {
    /// The unit as reports name it (`a.cl`, `host.cpp:42`, `a.cl [fp64]`).
    pub unit: String,
    pub method: ProofMethod,
    /// The changed functions proven on their own, by link name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<String>,
}

/// A kernel of a unit whose kept result still reads or writes memory
/// through generic pointers after address spaces are inferred, more often
/// than the original did (lint `residual-generic`, `verify::residual`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ResidualGeneric {
    /// The unit as reports name it (`a.cl`, `host.cpp:42`, `a.cl [fp64]`).
    pub unit: String,
    /// The kernel's definition (its unit's file when it is not found).
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub path: PathBuf,
    pub line: u32,
    pub col: u32,
    pub kernel: String,
    /// Accesses through generic pointers in the migrated kernel.
    pub accesses: usize,
    /// Those in the original, compiled as the target (builtins called
    /// through their generic overloads count on both sides).
    pub original: usize,
    /// By kind and cause: `2 loads in out-of-line `sum``.
    pub detail: String,
}

impl ResidualGeneric {
    /// What `--explain` and SARIF say of it: `kernel `k` (a.cl): 2 memory
    /// accesses through generic pointers, 0 before: 2 loads in out-of-line `sum``.
    pub fn message(&self) -> String {
        let accesses = if self.accesses == 1 { "access" } else { "accesses" };
        format!(
            "kernel `{}` ({}): {} memory {accesses} through generic pointers, {} before: {}",
            self.kernel, self.unit, self.accesses, self.original, self.detail
        )
    }
}

/// How kernels were proven equivalent (see *Verification and accounting*).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProofMethod {
    /// Changed functions proven on their own, once per batch, and called
    /// opaquely by the kernels compared; the other changed helpers inlined.
    Functions,
    /// The changed helpers inlined into the kernels compared (functions
    /// both sides define alike called opaquely).
    Kernels,
    /// Every helper inlined into the kernels compared.
    WholeKernels,
}

impl ProofMethod {
    pub fn of(found: &crate::verify::Equivalence) -> ProofMethod {
        if found.whole_kernels {
            ProofMethod::WholeKernels
        } else if found.proven_functions.is_empty() {
            ProofMethod::Kernels
        } else {
            ProofMethod::Functions
        }
    }
}

/// A merge of duplicates that stands: the survivor's name and place, every member (the survivor first).
#[derive(Debug, Clone, Serialize)]
pub struct MergeReport {
    pub name: String,
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub file: PathBuf,
    pub line: u32,
    pub members: Vec<Member>,
    /// Members of the group that stay as they are.
    pub kept: Vec<KeptMember>,
    pub verified: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct KeptMember {
    #[serde(flatten)]
    pub member: Member,
    pub why: String,
}

/// A unit a kept change touches, as a device compiler would build it.
#[derive(Debug, Clone)]
pub struct ChangedProgram {
    /// How reports name the unit (`a.cl`, `host.cpp:42`, `a.cl [fp64]`).
    pub label: String,
    pub path: PathBuf,
    /// The options it was loaded with (the host's, as far as clasp knows them).
    pub compile: crate::settings::options::CompileOptions,
    /// Every file it reads, its main text first (an embedded kernel's or a program's virtual file).
    pub files: Vec<ProgramFile>,
}

/// A file of a changed program. A real file's bytes are the migration's
/// change of it, or on disk; a virtual one (an embedded kernel's or a
/// program's text) keeps its bytes, and its migrated bytes when it changed.
#[derive(Debug, Clone)]
pub struct ProgramFile {
    pub canonical: PathBuf,
    pub virtual_text: Option<(Vec<u8>, Option<Vec<u8>>)>,
}

// What `--device-check` found (`devices::check` makes it): part of the report.

/// What the devices said about every changed program.
#[derive(Debug, Clone, Serialize)]
pub struct DeviceCheck {
    /// The devices built for, as `NAME (PLATFORM)`.
    pub devices: Vec<String>,
    pub programs: Vec<ProgramCheck>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProgramCheck {
    pub unit: String,
    pub path: PathBuf,
    pub original_options: String,
    pub result_options: String,
    pub devices: Vec<DeviceVerdict>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DeviceVerdict {
    pub device: String,
    pub original: Verdict,
    pub result: Verdict,
}

/// Accepted or rejected, with the first lines of the build log.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub accepted: bool,
    pub log: Vec<String>,
}

impl DeviceVerdict {
    /// The device builds the original and rejects clasp's result.
    pub fn regressed(&self) -> bool {
        self.original.accepted && !self.result.accepted
    }
}
