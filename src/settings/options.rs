//! Compiler options shared by every stage that runs clang: the input
//! language standard (forced, or `auto`: chosen per unit), the migration
//! target, `-I`, `-D`, `-include` and the host's other clang options.

use std::path::PathBuf;

/// An OpenCL C language standard, as `-cl-std=` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum ClStd {
    #[serde(rename = "CL1.0")]
    Cl10,
    #[serde(rename = "CL1.1")]
    Cl11,
    #[serde(rename = "CL1.2")]
    Cl12,
    #[serde(rename = "CL2.0")]
    Cl20,
    #[serde(rename = "CL3.0")]
    Cl30,
}

/// A value of an option that names no choice clasp knows (what `parse` says).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnknownValue {
    /// `--std` or `-cl-std=`: `auto` is one of the choices where `auto` is set.
    #[error("unknown OpenCL C standard `{text}` (expected {}CL1.0, CL1.1, CL1.2, CL2.0 or CL3.0)", if *auto { "auto, " } else { "" })]
    Std { text: String, auto: bool },
    /// `--target` (where `device` is set, `--target device[:NAME]` is one of the choices).
    #[error("unknown target `{text}` (expected cl2.0, cl3.0{})", if *device { ", cl3.0-nogeneric, device or device:NAME)" } else { " or cl3.0-nogeneric)" })]
    Target { text: String, device: bool },
    /// `--globals`.
    #[error("unknown policy `{text}` (as-needed, prefer-global)")]
    Policy { text: String },
}

impl ClStd {
    pub fn parse(text: &str) -> Result<ClStd, UnknownValue> {
        match text.to_ascii_uppercase().trim_start_matches("CL") {
            "1.0" => Ok(ClStd::Cl10),
            "1.1" => Ok(ClStd::Cl11),
            "1.2" => Ok(ClStd::Cl12),
            "2.0" => Ok(ClStd::Cl20),
            "3.0" => Ok(ClStd::Cl30),
            _ => Err(UnknownValue::Std { text: text.to_string(), auto: false }),
        }
    }
    /// `CL1.2`, as users write it.
    pub fn name(self) -> &'static str {
        match self {
            ClStd::Cl10 => "CL1.0",
            ClStd::Cl11 => "CL1.1",
            ClStd::Cl12 => "CL1.2",
            ClStd::Cl20 => "CL2.0",
            ClStd::Cl30 => "CL3.0",
        }
    }
    pub fn flag(self) -> String {
        format!("-cl-std={}", self.name())
    }
    /// This standard with its default features.
    pub fn standard(self) -> Standard {
        Standard { std: self, flags: vec![self.flag()] }
    }
}

/// A language a unit is compiled as: a standard and the clang flags that
/// select it (for a CL3.0 target, with the target's feature flags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standard {
    pub std: ClStd,
    pub flags: Vec<String>,
}

/// `--std`: the input standard, forced, or `auto`: per unit, CL1.2 when the
/// unit compiles so, else the target's standard (so that clasp's own output,
/// which is 2.0 code, is read as such).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputStd {
    Auto,
    Fixed(ClStd),
}

impl InputStd {
    pub fn parse(text: &str) -> Result<InputStd, UnknownValue> {
        if text.eq_ignore_ascii_case("auto") {
            return Ok(InputStd::Auto);
        }
        ClStd::parse(text).map(InputStd::Fixed).map_err(|_| UnknownValue::Std { text: text.to_string(), auto: true })
    }
    /// The standards to try for a unit, in order: the first it compiles as is its input standard.
    pub fn candidates(self, target: Target) -> Vec<Standard> {
        match self {
            InputStd::Fixed(std) => vec![std.standard()],
            InputStd::Auto => vec![ClStd::Cl12.standard(), target.standard()],
        }
    }
    /// The standard tried first, whose errors are reported when none fits.
    pub fn first(self) -> ClStd {
        match self {
            InputStd::Fixed(std) => std,
            InputStd::Auto => ClStd::Cl12,
        }
    }
}

/// What the migrated code must compile as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Target {
    /// OpenCL C 2.0: generic address space and program-scope globals.
    #[serde(rename = "cl2.0")]
    Cl20,
    /// OpenCL C 3.0 with `__opencl_c_generic_address_space` and
    /// `__opencl_c_program_scope_global_variables`.
    #[serde(rename = "cl3.0")]
    Cl30,
    /// OpenCL C 3.0 without those features: 1.2 rules, nothing can be generic.
    #[serde(rename = "cl3.0-nogeneric")]
    Cl30NoGeneric,
}

impl Target {
    pub fn parse(text: &str) -> Result<Target, UnknownValue> {
        match text {
            "cl2.0" | "CL2.0" => Ok(Target::Cl20),
            "cl3.0" | "CL3.0" => Ok(Target::Cl30),
            "cl3.0-nogeneric" | "CL3.0-nogeneric" => Ok(Target::Cl30NoGeneric),
            _ => Err(UnknownValue::Target { text: text.to_string(), device: false }),
        }
    }
    pub fn has_generic(self) -> bool {
        !matches!(self, Target::Cl30NoGeneric)
    }
    /// Program-scope variables may be `__global` (the same targets have generic).
    pub fn has_program_scope_globals(self) -> bool {
        !matches!(self, Target::Cl30NoGeneric)
    }
    /// The clang flags that select this target's language rules.
    pub fn std_flags(self) -> Vec<String> {
        match self {
            Target::Cl20 => vec![ClStd::Cl20.flag()],
            Target::Cl30 => vec![
                ClStd::Cl30.flag(),
                "-Xclang".into(),
                "-cl-ext=-all,+__opencl_c_generic_address_space,+__opencl_c_program_scope_global_variables".into(),
            ],
            Target::Cl30NoGeneric => vec![ClStd::Cl30.flag(), "-Xclang".into(), "-cl-ext=-all".into()],
        }
    }
    /// The target's language, as an input standard.
    pub fn standard(self) -> Standard {
        let std = if self == Target::Cl20 { ClStd::Cl20 } else { ClStd::Cl30 };
        Standard { std, flags: self.std_flags() }
    }
    pub fn name(self) -> &'static str {
        match self {
            Target::Cl20 => "cl2.0",
            Target::Cl30 => "cl3.0",
            Target::Cl30NoGeneric => "cl3.0-nogeneric",
        }
    }
}

/// Options for compiling one translation unit, as given on the command line
/// (host build options included, see `build_options`).
#[derive(Debug, Clone)]
pub struct CompileOptions {
    pub std: InputStd,
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    /// `-include` files, as given: clang looks for them in the current
    /// directory first, then on the include path, and so do all of clasp's
    /// compilations (they all run in the current directory).
    pub includes: Vec<PathBuf>,
    /// Further clang arguments, passed verbatim: a host's `-cl-*` options
    /// that clang accepts, `-w`, `-Werror`, `-g`, and those after `--`.
    pub clang_extra: Vec<String>,
    /// Include the full `opencl-c.h` instead of the driver's lazily declared builtins.
    pub full_header: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            std: InputStd::Auto,
            include_dirs: Vec::new(),
            defines: Vec::new(),
            includes: Vec::new(),
            clang_extra: Vec::new(),
            full_header: false,
        }
    }
}

impl CompileOptions {
    /// The clang arguments for a unit as `std_flags` (a `Standard`'s flags);
    /// `None` means the standard `--std` names, or CL1.2 (the first one
    /// `auto` tries): a loaded unit's own is `Unit::standard`.
    pub fn clang_args(&self, std_flags: Option<&[String]>) -> Vec<String> {
        self.clang_args_for(std_flags, "spir64")
    }

    /// As `clang_args`, for another target triple.
    pub fn clang_args_for(&self, std_flags: Option<&[String]>, triple: &str) -> Vec<String> {
        let mut args = vec!["-x".to_string(), "cl".to_string()];
        match std_flags {
            Some(flags) => args.extend(flags.iter().cloned()),
            None => args.push(self.std.first().flag()),
        }
        args.extend(["-target".to_string(), triple.to_string()]);
        if self.full_header {
            args.extend(["-Xclang".to_string(), "-finclude-default-header".to_string()]);
        }
        for dir in &self.include_dirs {
            args.push(format!("-I{}", dir.display()));
        }
        for define in &self.defines {
            args.push(format!("-D{define}"));
        }
        for file in &self.includes {
            args.extend(["-include".to_string(), file.display().to_string()]);
        }
        // A host's driver options may be meaningless for the triples clasp
        // compiles for (`-cl-denorms-are-zero` for spir64): not a warning,
        // nor, with `-Werror`, an error.
        args.push("-Wno-unused-command-line-argument".to_string());
        args.extend(self.clang_extra.iter().cloned());
        args
    }
}

/// Configuration discovery's default bound: extra builds per unit.
pub const DEFAULT_DISCOVERED_CONFIGURATIONS: usize = 4;

/// Everything `migrate` is asked to do, from the command line and `clasp.toml`.
#[derive(Debug, Clone)]
pub struct MigrateOptions {
    pub compile: CompileOptions,
    pub target: Target,
    /// The edit root (canonical): only files under it are edited and accounted for.
    pub root: PathBuf,
    /// Recompile as the target and prove the kernels equivalent.
    pub verify: bool,
    /// Keep changes whose kernels could not be proven equivalent, marked unverified.
    pub allow_unverified: bool,
    /// Merge helpers duplicated per address space (`merge-duplicates`).
    pub merge: bool,
    /// A program's `__constant` data over this many bytes moves to `__global`, largest first.
    pub constant_budget: u64,
    /// Which program-scope variables move when the budget does not require it.
    pub globals: GlobalsPolicy,
    /// The largest inlined kernel verification optimises (instructions,
    /// estimated); a change set whose proof needs more is withdrawn
    /// (`proof-too-large`). `None`: no bound.
    pub proof_limit: Option<u64>,
    /// At most this many configurations a unit is built in beyond those given,
    /// derived to build code `#if` skips (`migrate::discovered`); 0: none.
    pub discover_configurations: usize,
    /// Rules `--select`/`--ignore` (or clasp.toml) leave out, each with why: they change nothing.
    pub left_out: std::collections::BTreeMap<crate::codes::Code, String>,
    /// Rules clasp.toml's `[[file]]` entries leave out of the files they match, besides `left_out`.
    pub file_rules: Vec<FileRules>,
    /// Declarations (canonical file, name offset) kept as they are, with why: the
    /// changes skipped in an `--interactive` review.
    pub kept_decls: std::collections::BTreeMap<(PathBuf, u32), String>,
    /// `--interactive`: also render each change set's files on its own
    /// (`Migration::set_changes`), the diff its review shows.
    pub each_set: bool,
    /// Testing only: pins ignored by the inference, to prove verification catches what they prevent.
    pub ignored_pins: Vec<crate::codes::Code>,
    /// With `-`: the file (canonical) standard input's text stands for, the
    /// only one that may change; a change set editing another is withheld (`outside-root`).
    pub stdin: Option<PathBuf>,
    /// Worker threads for loading and first checks (at least 1); output is the same for any number.
    pub jobs: usize,
    /// Where to show how far the run is (stderr, when it is a terminal).
    pub progress: crate::support::progress::Progress,
    /// Where verdicts are kept across runs and runners (`None`: `--no-cache`).
    pub store: Option<std::sync::Arc<crate::support::store::Store>>,
    /// `--shard K/N`: verify only this shard's units, keeping their verdicts in the store.
    pub shard: Option<Shard>,
}

/// `--shard K/N`: the K-th of N parts of a batch (K from 1). Unit `u` of the
/// batch, in its order (every shard plans the whole batch alike), is in
/// part `u mod N`: units of one directory, which cost alike, spread over all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}` is not K/N with 1 <= K <= N (as 2/4)");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { index: k - 1, count: n })
    }

    /// Whether the unit at `position` in the batch is this shard's.
    pub fn owns(&self, position: usize) -> bool {
        position % self.count == self.index
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

/// The rules a `[[file]]` entry of clasp.toml (`select`, `ignore`) leaves
/// out of the files its glob matches, each with why.
#[derive(Debug, Clone)]
pub struct FileRules {
    /// The entry's `path`, based at the clasp.toml's directory (canonical).
    pub glob: crate::support::glob::Globs,
    pub left_out: std::collections::BTreeMap<crate::codes::Code, String>,
}

impl FileRules {
    /// Whether the entry matches a (canonical) file.
    pub fn matches(&self, file: &std::path::Path) -> bool {
        self.glob.matches(file, false)
    }
}

impl MigrateOptions {
    /// Why `rule` changes nothing in a (canonical) file, if it does not: the
    /// batch leaves it out (`left_out`), or a `[[file]]` matching the file does.
    pub fn left_out_in(&self, file: &std::path::Path, rule: crate::codes::Code) -> Option<&String> {
        self.left_out
            .get(&rule)
            .or_else(|| self.file_rules.iter().filter(|f| f.matches(file)).find_map(|f| f.left_out.get(&rule)))
    }

    /// Why a (canonical) file may not be edited: outside the edit root, or,
    /// with `-`, not the file standard input stands for. `None`: it may.
    pub fn not_editable(&self, file: &std::path::Path) -> Option<String> {
        if !crate::settings::root::is_under(&self.root, file) {
            return Some(format!("{} is outside the edit root {}", file.display(), self.root.display()));
        }
        match &self.stdin {
            Some(stdin) if stdin != file => Some(format!(
                "{} is not the file standard input stands for ({}): only that text changes",
                file.display(),
                stdin.display()
            )),
            _ => None,
        }
    }
}

/// Which program-scope variables move when nothing requires it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GlobalsPolicy {
    /// Only to bring a program's `__constant` data within the budget.
    #[default]
    AsNeeded,
    /// Every variable that can move.
    PreferGlobal,
}

impl GlobalsPolicy {
    pub fn parse(text: &str) -> Result<GlobalsPolicy, UnknownValue> {
        match text {
            "as-needed" => Ok(GlobalsPolicy::AsNeeded),
            "prefer-global" => Ok(GlobalsPolicy::PreferGlobal),
            other => Err(UnknownValue::Policy { text: other.to_string() }),
        }
    }
}

/// The devices' guaranteed constant memory (`CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE` minimum).
pub const DEFAULT_CONSTANT_BUDGET: u64 = 64 * 1024;

/// `--proof-limit`'s default: the largest inlined kernel (instructions,
/// estimated) verification optimises. On `scripts/gen_big_program.py`'s
/// 50,000-line program a comparison of kernels of about 230,000 inlined
/// instructions peaks at 550 MB and takes seconds; memory grows with the
/// size, so this keeps a comparison near 1 GB (README *Benchmark*).
pub const DEFAULT_PROOF_LIMIT: u64 = 500_000;

/// `--device-check` (`error`, the default) or `--device-check=report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DeviceCheckMode {
    /// A result a device rejects while it builds the original is an error (exit 2).
    Error,
    /// Only report what the devices say.
    Report,
}
