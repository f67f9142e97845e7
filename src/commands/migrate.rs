//! `clasp migrate`: rewrites the project's helpers to OpenCL C 2.0 generic
//! pointers and reports the result. Stages: resolve the project -> migrate
//! -> refuse to write over uncommitted changes -> write (`--write`,
//! `--out-dir`) -> print the report (stdout) and diagnostics (stderr) ->
//! exit code (2 on any error, 1 with `--check` when changes are pending).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::cache::Cache;
use super::devices::Selected;
use super::Stop;
use crate::cli::args::{Format, MigrateArgs};
use crate::cli::project::{Inputs, Project};
use crate::front::unit::Workbench;
use crate::migrate::{migrate, FileError, MigrateOptions, Migration};
use crate::output::render;
use crate::output::summary::Mode;
use crate::support::exit::{EXIT_ERROR, EXIT_OK, EXIT_PENDING};
use crate::support::style::{Palette, Palettes};

/// Runs `clasp migrate` and returns its exit code.
pub fn run(args: &MigrateArgs, palettes: Palettes, stdout: &mut dyn Write, stderr: &mut dyn Write) -> i32 {
    let code = super::exit_code(migrate_project(args, palettes, stdout, stderr), palettes.stderr, stderr);
    // After the cache too: a replayed run stored the code of `--check` alone.
    if args.exit_zero && code == EXIT_PENDING {
        EXIT_OK
    } else {
        code
    }
}

fn migrate_project(args: &MigrateArgs, palettes: Palettes, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<i32, Stop> {
    super::rule::code_given_as_path(&args.paths)?;
    let writing = [("--out-dir", args.out_dir.is_some()), ("--interactive", args.interactive)];
    // Laid over its file until the run ends (the cache's replay and store read it too).
    let stdin = super::stdin::take(&args.paths, args.project.stdin_filename.as_deref(), &writing)?;
    let paths = stdin.as_ref().map_or_else(|| args.paths.clone(), super::stdin::Stdin::paths);
    let selected = Selected::resolve(args.target.as_ref(), args.device_check.is_some())?;
    let mut inputs = Inputs::from(args);
    inputs.paths = &paths;
    inputs.target = selected.as_ref().and_then(Selected::target).or(inputs.target);
    let project = Project::resolve(inputs)?;
    for warning in &project.config_warnings {
        let _ = writeln!(stderr, "{}", palettes.stderr.diagnostic(warning));
    }
    super::preflight::runs_in_process(&project.jobs)?;
    crate::isolation::announce_timeout(project.timeout);
    let searched = super::preflight::searched(&paths, &args.project);
    super::preflight::units_found(&project, &searched)?;
    super::preflight::options_accepted(&project.jobs)?;
    let mut options = migrate_options(args, &project)?;
    options.stdin = stdin.as_ref().map(super::stdin::Stdin::canonical);
    // `--write` over standard input writes no file (it prints the new text): the store neither.
    if options.stdin.is_none() || !args.write {
        options.store = super::cache::open_store(args, &options.root)?;
    }
    let code = replayed_or_migrated(args, palettes, (project, selected), &options, stdout, stderr);
    // Once everything is stored: the run's result too.
    if let Some(store) = &options.store {
        store.trim();
    }
    code
}

/// The run's stored output replayed, else the batch migrated (and its output
/// stored when the run is one to replay: `Cache::for_run`).
fn replayed_or_migrated(
    args: &MigrateArgs,
    palettes: Palettes,
    (project, selected): (Project, Option<Selected>),
    options: &MigrateOptions,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<i32, Stop> {
    let cache = Cache::for_run(args, palettes, &project, options);
    if let Some(code) = cache.as_ref().and_then(|c| c.replay(stdout, stderr)) {
        return Ok(code);
    }
    if args.test_cache_only {
        return Err(Stop::clasp("no stored result for this run (--test-cache-only)".to_string()));
    }
    let Some(cache) = cache else {
        return migrate_batch(args, palettes, (project, selected), options, stdout, stderr).map(|(code, _)| code);
    };
    // Printed into buffers, stored, then passed on: the replay is byte for byte this output.
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let jobs = project.jobs.clone();
    let (code, migration) = migrate_batch(args, palettes, (project, selected), options, &mut out, &mut err)?;
    // A run that could not use its cache server printed a warning another run would not.
    if options.store.as_ref().is_none_or(|store| store.warnings().is_empty()) {
        cache.store(&migration, &jobs, &out, &err, code);
    }
    let _ = stdout.write_all(&out);
    let _ = stderr.write_all(&err);
    Ok(code)
}

/// What `clasp server` shows for an open file: the dry run of `args` (its
/// paths, or `--compile-commands`' list), as `migrate_project` resolves and
/// migrates it, with each change set's own files (`each_set`), and the edit
/// root. Texts the editor has not saved are laid over their files by the
/// caller (`support::overlay`). No cache, no device, nothing written.
pub fn dry_run(args: &MigrateArgs) -> Result<(Migration, PathBuf), Stop> {
    let project = Project::resolve(Inputs::from(args))?;
    super::preflight::runs_in_process(&project.jobs)?;
    let searched = super::preflight::searched(&args.paths, &args.project);
    super::preflight::units_found(&project, &searched)?;
    super::preflight::options_accepted(&project.jobs)?;
    // No store: buffers change with every keystroke, their results are not kept.
    let mut options = migrate_options(args, &project)?;
    options.each_set = true;
    options.progress = crate::support::progress::Progress::hidden();
    let bench = Workbench::new().map_err(|e| Stop::clasp(e.to_string()))?;
    let mut migration = migrate(&bench, &project.jobs, &project.host_files, &options);
    add_unreadable(&mut migration, project.unreadable);
    Ok((migration, options.root))
}

/// Migrates, writes (`--write`, `--out-dir`, `--interactive`) and reports: the exit code and the migration.
fn migrate_batch(
    args: &MigrateArgs,
    palettes: Palettes,
    (project, selected): (Project, Option<Selected>),
    options: &MigrateOptions,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<(i32, Migration), Stop> {
    let bench = Workbench::new().map_err(|e| Stop::clasp(e.to_string()))?;
    let mut migration = migrate(&bench, &project.jobs, &project.host_files, options);
    options.progress.finish();
    if let Some(store) = &options.store {
        for warning in store.warnings() {
            let _ = writeln!(stderr, "{}", palettes.stderr.diagnostic(&format!("clasp: warning: {warning}")));
        }
    }
    if let Some(shard) = options.shard {
        let code = shard_done(shard, &migration, options, palettes.stderr, stderr);
        print_timings(args, stderr);
        return Ok((code, migration));
    }
    let nothing_said = migration.errors.is_empty() && migration.warnings.is_empty() && project.unreadable.is_empty();
    if migration.files_seen == 0 && nothing_said {
        // Host files were read, but none holds a kernel (nor a source it could not trace).
        let searched = super::preflight::searched(project.paths(), &args.project);
        return Err(super::preflight::no_unit(&searched, &project.host_files));
    }
    // --interactive writes in place, unless --out-dir takes the copies; `-` prints instead of writing.
    let in_place = (args.write && options.stdin.is_none()) || (args.interactive && args.out_dir.is_none());
    // Checked before the review too, over every file it may write: no questions answered for nothing.
    let mut refused = args.interactive && in_place && !args.allow_dirty && refuse_dirty_files(&mut migration);
    if args.interactive && !refused {
        migration = reviewed(palettes, &bench, &project, options, migration, stdout, stderr)?;
    }
    add_unreadable(&mut migration, project.unreadable);
    let device_lines = device_check(args, selected.as_ref(), options.target, &mut migration);
    refused = refused || (in_place && !args.allow_dirty && refuse_dirty_files(&mut migration));
    if (in_place || args.out_dir.is_some()) && !refused && !device_rejected(args, &mut migration) {
        write(&mut migration, args.out_dir.as_deref(), &options.root);
    }
    if args.timings || crate::support::timings::requested() {
        migration.timings = crate::support::timings::stages();
    }
    let base = render::DiffBase::for_files(migration.changes.iter().map(|c| c.path.as_path()), &options.root);
    let printed = match &options.stdin {
        Some(file) if args.write => print_new_text(&migration, file, stdout),
        _ => print_report(args, &migration, &base, palettes.stdout, stdout),
    };
    if printed {
        if let Some(note) = base.note() {
            let _ = writeln!(stderr, "{}", palettes.stderr.diagnostic(&note));
        }
    }
    if let Some(note) = args.out_dir.as_deref().and_then(|out| out_dir_note(&migration, out, &options.root)) {
        let _ = writeln!(stderr, "{}", palettes.stderr.diagnostic(&note));
    }
    if let Some(selected) = &selected {
        selected.say(stderr);
    }
    let mode = if migration.written || (args.write && options.stdin.is_some()) { Mode::Written } else { Mode::DryRun };
    print_diagnostics(args, &migration, (project.host, options.target), (palettes.stderr, mode), &device_lines, stderr);
    Ok((exit_code(args, &migration), migration))
}

/// A shard's end (`--shard`): its errors, and where its verdicts are; 2 on
/// errors, else 0 (the final run prints the diff and its exit code).
fn shard_done(
    shard: crate::settings::options::Shard,
    migration: &Migration,
    options: &MigrateOptions,
    palette: Palette,
    stderr: &mut dyn Write,
) -> i32 {
    for error in &migration.errors {
        let _ = writeln!(stderr, "{}", palette.diagnostic(&error.message));
    }
    let kept = options.store.as_ref().map(|store| store.describe()).unwrap_or_default();
    let _ = writeln!(stderr, "clasp: shard {shard} of {} units verified; its verdicts are kept in {kept}", migration.files_seen);
    if migration.errors.is_empty() {
        EXIT_OK
    } else {
        EXIT_ERROR
    }
}

/// `--device-check`: the changed programs built by the selected devices;
/// their verdicts become errors (or warnings, `=report`) and summary lines.
fn device_check(
    args: &MigrateArgs,
    selected: Option<&Selected>,
    target: crate::settings::options::Target,
    migration: &mut Migration,
) -> Vec<String> {
    let (Some(mode), Some(selected)) = (args.device_check, selected) else { return Vec::new() };
    match crate::devices::check::check(migration, &selected.devices(), target) {
        Ok(check) => {
            crate::devices::check::judge(&check, mode, migration);
            let lines = crate::devices::check::summary(&check);
            migration.device_check = Some(check);
            lines
        }
        Err(message) => {
            migration.errors.push(FileError { path: PathBuf::new(), message: format!("clasp: error: device check: {message}") });
            Vec::new()
        }
    }
}

/// Whether a device rejected a result (`--device-check`, not `=report`):
/// then nothing is written, said once.
fn device_rejected(args: &MigrateArgs, migration: &mut Migration) -> bool {
    let rejected = args.device_check == Some(crate::settings::options::DeviceCheckMode::Error)
        && migration.device_check.as_ref().is_some_and(|c| c.programs.iter().any(|p| p.devices.iter().any(|v| v.regressed())));
    if rejected {
        let message =
            "clasp: error: not writing: a device rejects a migrated program (see above; --device-check=report writes anyway)";
        migration.errors.push(FileError { path: PathBuf::new(), message: message.to_string() });
    }
    rejected
}

/// The migration's options, with the rules `--select`/`--ignore` leave out, once
/// the edit root is known to hold some of the files.
fn migrate_options(args: &MigrateArgs, project: &Project) -> Result<MigrateOptions, Stop> {
    let left_out = super::selection::left_out(&args.select_rules, &args.ignore_rules, project.config_rules.as_ref())?;
    let mut options = options(args, project, project.edit_root(args.root.as_deref())?);
    // Merges are a rule of their own: left out, no duplicate is merged (as --no-merge).
    options.merge &= !left_out.contains_key(&crate::codes::Code::MergeDuplicates);
    options.left_out = left_out;
    super::preflight::under_root(&project.jobs, &project.host_files, &options.root)?;
    Ok(options)
}

/// `--interactive`: the review (answers on stdin), then, when a change set was
/// skipped, the batch migrated and verified again with its declarations kept.
fn reviewed(
    palettes: Palettes,
    bench: &Workbench,
    project: &Project,
    options: &MigrateOptions,
    migration: Migration,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Migration, Stop> {
    let mut review =
        super::interactive::review(&migration, &options.root, &mut std::io::stdin().lock(), palettes, stdout, stderr);
    let mut result = migration;
    let settled = |result: Migration, review: &super::interactive::Review, stdout: &mut dyn Write, stderr: &mut dyn Write| {
        super::interactive::show_follow_up(review, &result, &options.root, palettes, stdout, stderr);
        Ok(result)
    };
    // Each round only keeps more declarations: in practice one or two rounds.
    for _round in 0..super::interactive::ROUNDS {
        if review.kept_decls.is_empty() {
            return settled(result, &review, stdout, stderr);
        }
        let again = MigrateOptions {
            kept_decls: review.kept_decls.clone(),
            // The review is over: this run's result is written, not shown set by set.
            each_set: false,
            progress: crate::support::progress::Progress::hidden(),
            ..options.clone()
        };
        result = migrate(bench, &project.jobs, &project.host_files, &again);
        if super::interactive::settle(&mut review, &result)? {
            return settled(result, &review, stdout, stderr);
        }
    }
    Err(Stop::clasp("the reviewed changes did not settle: nothing written".to_string()))
}

/// The migration's options: the project's and the command line's.
fn options(args: &MigrateArgs, project: &Project, root: PathBuf) -> MigrateOptions {
    MigrateOptions {
        compile: project.compile.clone(),
        target: project.target,
        root,
        verify: !args.no_verify,
        allow_unverified: args.allow_unverified,
        merge: !args.no_merge,
        constant_budget: args.constant_budget,
        proof_limit: Some(args.proof_limit).filter(|n| *n > 0),
        discover_configurations: args.discover_configurations,
        globals: args.globals,
        each_set: args.interactive,
        ignored_pins: args.test_ignore_pin.clone(),
        left_out: Default::default(),
        file_rules: project.file_rules.clone(),
        kept_decls: Default::default(),
        stdin: None,
        jobs: (crate::isolation::jobs_override().or(args.jobs.map(|n| n as usize)))
            .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)),
        progress: if args.quiet {
            crate::support::progress::Progress::hidden()
        } else {
            crate::support::progress::Progress::on_stderr()
        },
        store: None,
        shard: args.shard,
    }
}

/// Paths that discovery could not read are errors of the migration, and unanalysable.
fn add_unreadable(migration: &mut Migration, unreadable: Vec<(PathBuf, String)>) {
    for (path, message) in unreadable {
        migration.unanalysable.push(path.clone());
        migration.errors.push(FileError { path: path.clone(), message: format!("{}: error: {message}", path.display()) });
    }
}

/// `--write` without `--allow-dirty`: when a file to change has uncommitted
/// changes in its git work tree (or that cannot be told), nothing is written.
/// Returns whether it refused.
fn refuse_dirty_files(migration: &mut Migration) -> bool {
    let paths: Vec<PathBuf> = migration.changes.iter().map(|c| c.path.clone()).collect();
    let message = match crate::support::git::dirty(&paths) {
        Ok(dirty) if dirty.is_empty() => return false,
        Ok(dirty) => {
            let list: Vec<String> = dirty.iter().map(|p| format!("  {}", p.display())).collect();
            format!(
                "clasp: error: not writing: these files have uncommitted changes (commit or stash them, or pass --allow-dirty):\n{}",
                list.join("\n")
            )
        }
        Err(message) => format!("clasp: error: {message}"),
    };
    migration.errors.push(FileError { path: PathBuf::new(), message });
    migration.changes.clear();
    true
}

/// Writes the changed files, whole or not at all (`write::batch`): in place,
/// or mirrored under `out_dir` from the edit root `root` (`write::out_dir`).
/// A file that could not be written, and those sharing a change set with
/// it, are errors, and their functions not migrated.
fn write(migration: &mut Migration, out_dir: Option<&Path>, root: &Path) {
    use crate::output::write::batch::{write_all, Planned};
    migration.written = true;
    let canonical: Vec<&Path> = migration.changes.iter().map(|c| c.canonical.as_path()).collect();
    let places = out_dir.map(|out| crate::output::write::out_dir::destinations(out, root, &canonical));
    let files: Vec<Planned> = (migration.changes.iter().enumerate().zip(change_groups(migration)))
        .map(|((i, change), group)| planned(change, group, places.as_ref().map(|places| &places[i])))
        .collect();
    let failed = write_all(&files);
    for (index, message) in failed {
        let change = &migration.changes[index];
        migration.not_written.insert(change.canonical.clone());
        migration.errors.push(FileError { path: change.path.clone(), message });
    }
    for function in &mut migration.functions {
        let migrated = function.outcome.changed();
        if migrated && migration.not_written.contains(&crate::settings::root::canonical(&function.file)) {
            function.outcome = crate::migrate::report::Outcome::NotWritten;
        }
    }
}

/// Where `--out-dir` put the copies, when the edit root is not the current
/// directory (the copies mirror paths from the root): the first one written, as an example.
fn out_dir_note(migration: &Migration, out: &Path, root: &Path) -> Option<String> {
    migration.written.then_some(())?;
    let cwd = crate::settings::root::canonical(&std::env::current_dir().ok()?);
    let written = migration.changes.iter().find(|c| !migration.not_written.contains(&c.canonical))?;
    let copy = crate::output::write::mirrored(out, root, &written.canonical)?;
    (cwd != root).then(|| {
        let (file, copy) = (crate::settings::paths::shown_path(&written.path), copy.display());
        format!("clasp: note: --out-dir mirrors paths from the edit root {}: {file} is at {copy}", root.display())
    })
}

/// What writing `change` takes: the file in place, or its copy at `place`
/// (`--out-dir`), refused when it has none (with why: an error).
fn planned<'a>(
    change: &'a crate::migrate::report::FileChange,
    group: usize,
    place: Option<&Result<PathBuf, String>>,
) -> crate::output::write::batch::Planned<'a> {
    use crate::output::write::batch::Planned;
    let (bytes, path) = (&change.migrated, change.path.clone());
    match place {
        Some(Ok(copy)) => Planned { destination: copy.clone(), bytes, expected: None, group, refused: None },
        Some(Err(why)) => Planned { destination: path, bytes, expected: None, group, refused: Some(why.clone()) },
        None => Planned { destination: path, bytes, expected: Some(&change.original), group, refused: None },
    }
}

/// Each changed file's write group (`write::batch::groups`): files sharing a
/// change set, and a host file with the files its edited build calls follow
/// (the programs they build: switched to the new standard only with them).
fn change_groups(migration: &Migration) -> Vec<usize> {
    let sets = |c: &crate::migrate::report::FileChange| {
        c.fixes.iter().filter_map(|f| f.origin.as_ref().map(|o| o.set)).collect::<Vec<_>>()
    };
    // A file links to another through a key of its own, past every set's number.
    let base = migration.changes.iter().flat_map(sets).max().map_or(0, |s| s + 1);
    let index: std::collections::BTreeMap<&Path, usize> =
        migration.changes.iter().enumerate().map(|(i, c)| (c.canonical.as_path(), i)).collect();
    let links: Vec<Vec<usize>> = (migration.changes.iter().enumerate())
        .map(|(i, change)| {
            let calls =
                migration.host.build_calls.iter().filter(|c| crate::settings::root::canonical(&c.file) == change.canonical);
            let followed = calls.flat_map(|c| c.follows.iter()).filter_map(|f| index.get(f.as_path()));
            sets(change).into_iter().chain([base + i]).chain(followed.map(|j| base + j)).collect()
        })
        .collect();
    crate::output::write::batch::groups(&links)
}

/// `value` as pretty JSON and a newline, streamed: a big batch's report is
/// tens of MB (25 MB for the 400-unit shared-headers benchmark), which as
/// one string first raised the run's peak RSS by a third. Write errors
/// (a closed pipe) are ignored, as for every other report.
fn print_json(stdout: &mut dyn Write, value: &impl serde::Serialize) {
    let mut out = std::io::BufWriter::new(stdout);
    let _ = serde_json::to_writer_pretty(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush());
}

/// The report on stdout: JSON, SARIF, statistics, or the diff. Written
/// changes are not shown again; `--check --quiet` lists the files that
/// would change instead of their diff, as `black --check` names them.
/// Every file is named from `base`. Whether files were named (a diff or a list).
fn print_report(
    args: &MigrateArgs,
    migration: &Migration,
    base: &render::DiffBase,
    palette: Palette,
    stdout: &mut dyn Write,
) -> bool {
    let format = if args.json { Format::Json } else { args.format.unwrap_or(Format::Diff) };
    match format {
        Format::Json => {
            print_json(stdout, &crate::migrate::report::Versioned::new(migration));
            false
        }
        Format::Sarif => {
            print_json(stdout, &crate::output::sarif::log(migration));
            false
        }
        Format::Diff if args.statistics => {
            let _ = write!(stdout, "{}", render::statistics(migration));
            false
        }
        Format::Diff if args.write || args.out_dir.is_some() || args.interactive => false,
        Format::Diff if args.check && args.quiet => {
            for change in &migration.changes {
                let _ = writeln!(stdout, "{}", render::diff_path(&change.path, base));
            }
            !migration.changes.is_empty()
        }
        Format::Diff => {
            for change in &migration.changes {
                // Raw bytes: a file's own encoding goes through untouched, so `git apply` reproduces it.
                let _ = stdout.write_all(&palette.diff(render::diff(change, base)));
            }
            !migration.changes.is_empty()
        }
    }
}

/// `--write` with `-`: the whole new text of the file standard input stands
/// for (canonical `file`) on stdout, or the text as it came when it does not
/// change (nothing to change, or errors). Names no file.
fn print_new_text(migration: &Migration, file: &Path, stdout: &mut dyn Write) -> bool {
    let text = match migration.changes.iter().find(|c| c.canonical == file) {
        Some(change) => change.migrated.to_vec(),
        None => crate::support::overlay::read(file).unwrap_or_default(),
    };
    let _ = stdout.write_all(&text);
    false
}

/// On stderr: errors, warnings, explanations (`--explain`), the summary and
/// the time per stage (`CLASP_TIMINGS`).
fn print_diagnostics(
    args: &MigrateArgs,
    migration: &Migration,
    (host_note, target): (bool, crate::settings::options::Target),
    (palette, mode): (Palette, Mode),
    device_lines: &[String],
    stderr: &mut dyn Write,
) {
    for e in &migration.errors {
        let _ = writeln!(stderr, "{}", palette.diagnostic(&render::error_message(e)));
    }
    for w in &migration.warnings {
        let _ = writeln!(stderr, "{}", palette.diagnostic(&format!("{}: warning: {}", w.location(), w.message)));
    }
    for n in &migration.notes {
        let _ = writeln!(stderr, "{}", palette.diagnostic(&format!("{}: note: {}", n.location(), n.message)));
    }
    if args.explain {
        for line in render::explanations(migration) {
            let _ = writeln!(stderr, "{}", palette.explanation(&line));
        }
    }
    if let Some(note) =
        host_note.then(|| render::host_note(migration, &crate::rules::host_build_options::std_flag(target))).flatten()
    {
        let _ = writeln!(stderr, "{}", palette.diagnostic(&note));
    }
    for line in device_lines {
        let _ = writeln!(stderr, "{line}");
    }
    let _ = writeln!(stderr, "{}", crate::output::summary::summary(migration, mode));
    print_timings(args, stderr);
}

/// `--timings` (or CLASP_TIMINGS): the time per stage, last.
fn print_timings(args: &MigrateArgs, stderr: &mut dyn Write) {
    if let Some(times) = (args.timings || crate::support::timings::requested()).then(crate::support::timings::lines).flatten() {
        let _ = writeln!(stderr, "{times}");
    }
}

/// 2 on any error, 1 with `--check` when changes are pending (clasp's, or a
/// host build call that must be changed by hand: an untraced or unlinked
/// one with a warning), else 0.
fn exit_code(args: &MigrateArgs, migration: &Migration) -> i32 {
    let host_work = migration.host.build_calls.iter().any(|c| c.pending);
    if !migration.errors.is_empty() {
        EXIT_ERROR
    } else if args.check && (!migration.changes.is_empty() || host_work) {
        EXIT_PENDING
    } else {
        EXIT_OK
    }
}
