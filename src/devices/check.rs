//! `--device-check`: every changed program built by each selected device's
//! own compiler (`clCreateProgramWithSource` + `clBuildProgram`, in the
//! device worker): the original with the options the host gave it, the
//! result with the options clasp proposes for the host (the target's
//! `-cl-std`). A result a device rejects while it builds the original is an
//! error for that unit, or a warning with `--device-check=report`.
//!
//! A device compiler is given a string, not a file, so the files a program
//! includes are laid out for it: each side's files are written under a
//! scratch tree at their own absolute paths (the result's with clasp's
//! edits), and the include path names that tree first, then the real
//! directories (a header only the device's macros select is still found).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::worker::{self, Build, Built, WorkerError};
use super::{Device, Platform};
use crate::migrate::report::{
    ChangedProgram, DeviceCheck, DeviceVerdict, FileChange, FileError, Migration, ProgramCheck, Verdict, Warning,
};
use crate::settings::options::{CompileOptions, DeviceCheckMode as Mode, InputStd, Target};

/// How many lines of a build log reports keep.
const LOG_LINES: usize = 8;

/// Why the device check could not run.
#[derive(Debug, thiserror::Error)]
pub enum DeviceCheckError {
    /// No scratch directory to lay the programs out in.
    #[error("no scratch directory for the device check: {0}")]
    Scratch(#[source] std::io::Error),
    /// A file of a program cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    /// A file of a program cannot be written into the scratch tree.
    #[error("cannot lay out {} for the device check: {source}", path.display())]
    LayOut { path: PathBuf, source: std::io::Error },
    /// A program lists no file.
    #[error("a program without files")]
    NoFiles,
    /// The worker answered fewer builds than it was asked for.
    #[error("the device worker answered fewer builds than asked")]
    FewerBuilds,
    /// The device worker failed.
    #[error(transparent)]
    Worker(#[from] WorkerError),
}

/// Builds every program of `programs` on every device of `devices`, both sides.
pub fn check(migration: &Migration, devices: &[(&Platform, &Device)], target: Target) -> Result<DeviceCheck, DeviceCheckError> {
    let programs = &migration.programs;
    let changes: BTreeMap<&Path, &FileChange> = migration.changes.iter().map(|c| (c.canonical.as_path(), c)).collect();
    let scratch = tempfile::tempdir().map_err(DeviceCheckError::Scratch)?;
    let mut sides = Vec::new();
    for (i, program) in programs.iter().enumerate() {
        let dir = scratch.path().join(format!("p{i}"));
        let texts = Texts { program, changes: &changes };
        let original = Side::lay_out(&texts, &dir.join("original"), false, None)?;
        let result = Side::lay_out(&texts, &dir.join("result"), true, Some(target))?;
        sides.push((original, result));
    }
    let mut builds = Vec::new();
    for (original, result) in &sides {
        for (_, device) in devices {
            for side in [original, result] {
                builds.push(Build {
                    platform_index: device.platform_index,
                    device_index: device.device_index,
                    source: side.source.clone(),
                    options: side.options.clone(),
                });
            }
        }
    }
    // In the scratch directory: some drivers (PoCL) compile the source as a
    // file of the current directory, whose headers would win over the tree's.
    // A driver that hangs is bounded by --timeout like any compile (the supervisor ends the batch).
    let built = crate::isolation::phase(crate::isolation::Phase::Compiling, || worker::builds(builds, scratch.path()));
    let mut built = built?.into_iter();
    let mut next = || built.next().map(verdict).ok_or(DeviceCheckError::FewerBuilds);
    let mut checks = Vec::new();
    for (program, (original, result)) in programs.iter().zip(&sides) {
        let mut verdicts = Vec::new();
        for (_, device) in devices {
            verdicts.push(DeviceVerdict { device: device.name.clone(), original: next()?, result: next()? });
        }
        checks.push(ProgramCheck {
            unit: program.label.clone(),
            path: program.path.clone(),
            original_options: original.shown.clone(),
            result_options: result.shown.clone(),
            devices: verdicts,
        });
    }
    Ok(DeviceCheck { devices: devices.iter().map(|(p, d)| format!("{} ({})", d.name, p.name)).collect(), programs: checks })
}

fn verdict(built: Built) -> Verdict {
    let log = built.log.lines().map(str::trim_end).filter(|l| !l.trim().is_empty()).take(LOG_LINES).map(String::from).collect();
    Verdict { accepted: built.accepted, log }
}

/// One side of a program, as a device is given it.
struct Side {
    source: String,
    /// What the device is given: the scratch tree's directories first.
    options: String,
    /// As reports show them: the host's options, without the scratch tree.
    shown: String,
}

/// A program's files' bytes: a virtual file's own, a changed file's change, else the file on disk.
struct Texts<'a> {
    program: &'a ChangedProgram,
    changes: &'a BTreeMap<&'a Path, &'a FileChange>,
}

impl Texts<'_> {
    fn text(&self, file: usize, migrated: bool) -> Result<Vec<u8>, DeviceCheckError> {
        let file = &self.program.files[file];
        let pick = |original: &Vec<u8>, after: Option<&Vec<u8>>| match (after, migrated) {
            (Some(after), true) => after.clone(),
            _ => original.clone(),
        };
        match (&file.virtual_text, self.changes.get(file.canonical.as_path())) {
            (Some((original, after)), _) => Ok(pick(original, after.as_ref())),
            (None, Some(change)) => Ok(pick(&change.original, Some(&change.migrated))),
            (None, None) => crate::support::overlay::read(&file.canonical)
                .map_err(|source| DeviceCheckError::Read { path: file.canonical.clone(), source }),
        }
    }
}

impl Side {
    /// Writes the program's files under `tree` (migrated ones as migrated
    /// on the result side) and words its options: `target`'s standard on
    /// the result side, the host's (`--std`, when it named one) on the original.
    fn lay_out(texts: &Texts, tree: &Path, migrated: bool, target: Option<Target>) -> Result<Side, DeviceCheckError> {
        let program = texts.program;
        let mut all = Vec::new();
        for i in 0..program.files.len() {
            all.push(texts.text(i, migrated)?);
        }
        for i in (1..program.files.len()).filter(|i| !implicit(&program.files[*i].canonical)) {
            let at = mirrored(tree, &program.files[i].canonical);
            let written = at.parent().map(std::fs::create_dir_all).transpose().and_then(|_| std::fs::write(&at, &all[i]));
            written.map_err(|source| DeviceCheckError::LayOut { path: at, source })?;
        }
        let main = program.files.first().ok_or(DeviceCheckError::NoFiles)?;
        // Drivers cache builds by source and options (PoCL, NVIDIA), not by
        // the headers a source includes: the last line names every file's
        // bytes, so a side whose headers changed is never taken from a cache.
        let digest = all.iter().fold(FNV_OFFSET, |hash, text| fnv1a(hash, text));
        let source = format!("{}\n// clasp --device-check {digest:016x}\n", String::from_utf8_lossy(&all[0]));
        let std = match target {
            Some(target) => Some(crate::rules::host_build_options::std_flag(target)),
            None => match program.compile.std {
                InputStd::Fixed(std) => Some(std.flag()),
                InputStd::Auto => None,
            },
        };
        let options_for = |tree: Option<&Path>| options(&program.compile, tree, &main.canonical, std.clone(), program);
        Ok(Side { source, options: options_for(Some(tree)), shown: options_for(None) })
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a over `bytes`, continuing from `hash`.
fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// clang's own default header (`opencl-c-base.h`), which clang includes by
/// itself: no source names it, and a device has its own.
fn implicit(file: &Path) -> bool {
    let text = file.to_string_lossy();
    text.contains("/clang/") && (text.ends_with("/include/opencl-c-base.h") || text.ends_with("/include/opencl-c.h"))
}

/// Where `file` (absolute) is laid out under `tree`.
fn mirrored(tree: &Path, file: &Path) -> PathBuf {
    tree.join(file.strip_prefix("/").unwrap_or(file))
}

/// The build options a device is given: the scratch tree's directories
/// before the real ones, the host's `-D`s and `-include`s, the standard,
/// and the host's `-cl-*`, `-w` and `-Werror` (what OpenCL's
/// `clBuildProgram` defines; clang-only arguments are left out).
fn options(compile: &CompileOptions, tree: Option<&Path>, main: &Path, std: Option<String>, program: &ChangedProgram) -> String {
    let mut words = Vec::new();
    let dirs = main
        .parent()
        .map(Path::to_path_buf)
        .into_iter()
        .chain(compile.include_dirs.iter().map(|d| crate::settings::root::canonical(d)));
    for dir in dirs {
        words.extend(tree.map(|tree| format!("-I{}", quoted(&mirrored(tree, &dir)))));
        words.push(format!("-I{}", quoted(&dir)));
    }
    words.extend(compile.defines.iter().map(|d| format!("-D{d}")));
    for file in &compile.includes {
        let canonical = crate::settings::root::canonical(file);
        let laid_out = tree.filter(|_| program.files.iter().any(|f| f.canonical == canonical));
        words.push("-include".into());
        words.push(quoted(&laid_out.map(|tree| mirrored(tree, &canonical)).unwrap_or(canonical)));
    }
    words.extend(std);
    let device_option = |a: &&String| {
        (a.starts_with("-cl-") && !a.starts_with("-cl-std") && !a.starts_with("-cl-ext")) || *a == "-w" || *a == "-Werror"
    };
    words.extend(compile.clang_extra.iter().filter(device_option).cloned());
    words.join(" ")
}

/// A path as one option word (drivers split options at blanks).
fn quoted(path: &Path) -> String {
    let text = path.display().to_string();
    if text.contains(' ') {
        format!("\"{text}\"")
    } else {
        text
    }
}

/// The check's verdicts as errors (or, reported only, warnings) of the
/// migration: one per unit a device rejects after building its original.
pub fn judge(check: &DeviceCheck, mode: Mode, migration: &mut Migration) {
    for program in &check.programs {
        for verdict in program.devices.iter().filter(|v| v.regressed()) {
            let log = verdict.result.log.iter().map(|l| format!("\n    {l}")).collect::<String>();
            let message = format!(
                "device `{}` rejects the migrated program (it builds the original) with `{}`:{log}",
                verdict.device, program.result_options
            );
            match mode {
                Mode::Error => migration
                    .errors
                    .push(FileError { path: program.path.clone(), message: format!("{}: error: {message}", program.unit) }),
                Mode::Report => migration.warnings.push(Warning::new(PathBuf::from(&program.unit), message)),
            }
        }
    }
}

/// One line per device for the summary: originals and results accepted.
pub fn summary(check: &DeviceCheck) -> Vec<String> {
    if check.programs.is_empty() {
        return vec!["clasp: device check: no program changed, nothing to build".into()];
    }
    let total = check.programs.len();
    (0..check.devices.len())
        .map(|d| {
            let count = |f: &dyn Fn(&DeviceVerdict) -> bool| check.programs.iter().filter(|p| f(&p.devices[d])).count();
            format!(
                "clasp: device check: {}: originals built {}/{total}, results built {}/{total}, rejected after the migration {}",
                check.devices[d],
                count(&|v| v.original.accepted),
                count(&|v| v.result.accepted),
                count(&|v| v.regressed()),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(compile: CompileOptions) -> ChangedProgram {
        let files = ["/p/k/a.cl", "/p/inc/h.h"]
            .iter()
            .map(|f| crate::migrate::report::ProgramFile { canonical: PathBuf::from(f), virtual_text: None })
            .collect();
        ChangedProgram { label: "k/a.cl".into(), path: "k/a.cl".into(), compile, files }
    }

    #[test]
    fn devices_get_the_host_options_they_define_and_the_laid_out_tree_first() {
        let compile = CompileOptions {
            include_dirs: vec![PathBuf::from("/p/inc")],
            defines: vec!["N=4".into()],
            includes: vec![PathBuf::from("/p/inc/h.h"), PathBuf::from("/p/other.h")],
            clang_extra: ["-cl-mad-enable", "-cl-ext=+cl_khr_fp64", "-fno-builtin", "-w", "-cl-std=CL1.2"]
                .map(String::from)
                .to_vec(),
            ..CompileOptions::default()
        };
        let program = program(compile);
        let shown = options(&program.compile, None, Path::new("/p/k/a.cl"), Some("-cl-std=CL2.0".into()), &program);
        assert_eq!(shown, "-I/p/k -I/p/inc -DN=4 -include /p/inc/h.h -include /p/other.h -cl-std=CL2.0 -cl-mad-enable -w");
        let tree = Path::new("/t/result");
        let built = options(&program.compile, Some(tree), Path::new("/p/k/a.cl"), None, &program);
        assert_eq!(
            built,
            "-I/t/result/p/k -I/p/k -I/t/result/p/inc -I/p/inc -DN=4 -include /t/result/p/inc/h.h -include /p/other.h -cl-mad-enable -w"
        );
    }

    #[test]
    fn clang_default_header_is_not_laid_out_and_blank_paths_are_quoted() {
        assert!(implicit(Path::new("/usr/lib/llvm-19/lib/clang/19/include/opencl-c-base.h")));
        assert!(!implicit(Path::new("/p/include/opencl-c-base.h")));
        assert_eq!(quoted(Path::new("/my dir/inc")), "\"/my dir/inc\"");
    }
}
