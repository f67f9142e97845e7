//! Duplicates: helper definitions written once per address space, found
//! across the batch, and which of them merge into one generic definition.
//!
//! Two helper definitions are duplicates when their tokens as written are
//! the same except for the address-space qualifiers of their pointer
//! declarations, their own names, and calls to functions that are
//! themselves duplicates of each other (so `mid_g` -> `leaf_g` and `mid_l`
//! -> `leaf_l` are found together: classes are refined until stable).
//! Comments and blanks never count; any other token does, so a
//! near-duplicate stays. Units are compared on their own and their answers
//! joined: two definitions in a header are duplicates only if every unit
//! seeing both agrees.
//!
//! A group merges the members whose qualified pointers all become generic
//! under the inference (a `__constant` member, or one pinned by a builtin,
//! stays as its own function), provided no member is used in a way clasp
//! cannot rename (its address taken, named by a macro body or in
//! `#if`-skipped code) and one member is defined, before every use, in every
//! unit that sees the group: that one survives, under the group's common
//! name when it is free.
//!
//! Its documentation, what `clasp rule merge-duplicates` prints, is `DOC` below.

mod detect;
pub mod edits;
mod name;
mod refuse;
mod survivor;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::codes::{verified, Code, Doc};
use crate::facts::syntax::{FileIndex, Space};
use crate::front::unit::Unit;
use crate::infer::{Decision, Decisions};
use crate::rules::Fix;
use crate::support::ids::{DeclKey, UnitId};
pub use detect::Detected;
use edits::MergeEdits;

/// A member of a group, for messages and reports.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Member {
    pub name: String,
    /// Where it is defined for people: the real file (a program's source, a host file).
    #[serde(serialize_with = "crate::settings::paths::serialize_shown")]
    pub file: PathBuf,
    pub line: u32,
    pub col: u32,
    #[serde(skip)]
    pub key: DeclKey,
    #[serde(skip)]
    pub link_name: String,
    /// The unit's file that defines it (a program's virtual file), which the merge's fix names.
    #[serde(skip)]
    pub unit_file: PathBuf,
}

impl Member {
    /// `dot_l` (a.cl:12)
    pub fn cited(&self) -> String {
        format!("`{}` ({}:{})", self.name, crate::settings::paths::shown_path(&self.file), self.line)
    }
}

/// A member of a group that stays as its own function, with why.
#[derive(Debug, Clone)]
pub struct Kept {
    pub member: Member,
    /// What keeps it: `calls-unmerged` when it calls a group that does not
    /// merge, else what pins one of its pointers.
    pub code: Code,
    pub why: String,
}

/// A merge to make: one change set with the generic rewrites of its members.
#[derive(Debug, Clone)]
pub struct Merge {
    /// The members that become one, the survivor first.
    pub members: Vec<Member>,
    /// Members of the group that stay as they are, with why.
    pub kept: Vec<Kept>,
    /// The survivor's name after the merge.
    pub name: String,
    pub fix: Fix,
    /// The units that see a member.
    pub units: BTreeSet<UnitId>,
    /// Keys of the members' declarations that become generic: their fixes join the merge's set.
    pub decl_keys: Vec<DeclKey>,
    /// Other merges this one needs (its members call theirs).
    pub depends_on: BTreeSet<usize>,
    /// Files the merge edits: (canonical path, a unit that has it, its id there).
    pub files: Vec<(PathBuf, UnitId, FileIndex)>,
}

/// A group of duplicates that is not merged, with a stable reason code.
#[derive(Debug, Clone, Serialize)]
pub struct Unmerged {
    pub members: Vec<Member>,
    pub reason: Code,
    pub detail: String,
}

impl Unmerged {
    pub fn names(&self) -> String {
        self.members.iter().map(|m| format!("`{}`", m.name)).collect::<Vec<_>>().join(", ")
    }
}

/// What the batch's duplicates come to.
#[derive(Debug, Default)]
pub struct Duplicates {
    pub merges: Vec<Merge>,
    pub unmerged: Vec<Unmerged>,
}

/// Checks new names: returns those already taken (keywords, builtins).
pub type NameProbe<'a> = &'a dyn Fn(&[String]) -> Result<BTreeSet<String>, crate::front::parse::ParseError>;

/// Groups withdrawn by an earlier round of verification: each member with the withdrawal's code and detail.
pub type Withdrawn = BTreeMap<DeclKey, (Code, String)>;

/// What `find` needs beyond the batch's groups: the decisions, the edit
/// root, the withdrawn merges, the name probe and the `__constant` members
/// whose data cannot move.
pub struct FindContext<'a> {
    pub decisions: &'a [Decisions],
    pub root: &'a Path,
    pub withdrawn: &'a Withdrawn,
    pub taken: NameProbe<'a>,
    pub constant_stays: &'a BTreeMap<DeclKey, String>,
}

/// Decides which of the batch's duplicate groups merge: the groups refused
/// as a whole, then per group the members that stay, then survivors and names.
pub fn find(units: &[Unit], detected: &Detected, cx: &FindContext) -> Duplicates {
    let mut out = Duplicates::default();
    let mut candidates = candidates(units, detected, cx, &mut out.unmerged);
    let grouped: BTreeSet<DeclKey> = candidates
        .iter()
        .flat_map(|c| c.members.iter())
        .chain(out.unmerged.iter().flat_map(|g| g.members.iter()))
        .map(|m| m.key)
        .collect();
    refuse::keep_what_would_lose_const(units, &detected.views, &mut candidates);
    refuse::drop_calls_to_unmerged(detected, &grouped, &mut candidates);
    merges(units, detected, cx, &candidates, &mut out);
    out
}

/// The per-space groups that pass the batch-wide checks, with the members
/// that cannot join; the others go to `unmerged`.
fn candidates(units: &[Unit], detected: &Detected, cx: &FindContext, unmerged: &mut Vec<Unmerged>) -> Vec<Candidate> {
    let mut candidates = Vec::new();
    for group in &detected.groups {
        // Copies with the same qualifiers are not per-space duplicates: not clasp's business.
        if detected.signatures(group).len() < 2 {
            continue;
        }
        let members = detected.members_of(units, group);
        let seeing = detected.index.seeing(group);
        let (declaring, refused) = refuse::batch_refusal(units, detected, group, &members, &seeing, cx.root, cx.withdrawn);
        if let Some((reason, detail)) = refused {
            unmerged.push(Unmerged { members, reason, detail });
            continue;
        }
        let kept = refuse::unmergeable_members(units, &detected.views, cx.decisions, &members, &seeing, cx.constant_stays);
        candidates.push(Candidate { members, kept, seeing, declaring });
    }
    candidates
}

/// The merges of the candidates with two or more members merging: survivor,
/// name, the merges each depends on; a candidate left with one member, or
/// with no survivor, is not merged.
fn merges(units: &[Unit], detected: &Detected, cx: &FindContext, candidates: &[Candidate], out: &mut Duplicates) {
    let stems: Vec<Option<String>> = candidates.iter().map(|c| name::stem(&c.merging())).collect();
    let mut probe: Vec<String> = stems.iter().flatten().cloned().collect();
    probe.sort();
    probe.dedup();
    let taken = (cx.taken)(&probe).unwrap_or_else(|_| probe.iter().cloned().collect());
    // Each name taken, with the real places of the group that took it.
    let mut claimed: BTreeMap<String, BTreeSet<detect::Place>> = BTreeMap::new();
    let index_of_member: BTreeMap<DeclKey, usize> =
        candidates.iter().enumerate().flat_map(|(i, c)| c.merging().into_iter().map(move |m| (m.key, i))).collect();
    let mut merge_of_candidate: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, candidate) in candidates.iter().enumerate() {
        let merging = candidate.merging();
        if merging.len() < 2 {
            out.unmerged.push(candidate.unmerged_for_kept());
            continue;
        }
        let Some(survivor) = survivor::survivor(units, &detected.views, &merging, &candidate.seeing) else {
            let detail = "no member is defined before every use of the group in every unit that sees it".to_string();
            out.unmerged.push(Unmerged { members: candidate.members.clone(), reason: Code::NoSurvivor, detail });
            continue;
        };
        let touched: BTreeSet<UnitId> = candidate.seeing.union(&candidate.declaring).copied().collect();
        // The same functions seen through several programs (a source they share) are
        // several groups here, one group in the files: they take one name.
        let places = detect::real_places(units, detected, &merging);
        let claimed_by_others: BTreeSet<String> =
            claimed.iter().filter(|(_, by)| **by != places).map(|(name, _)| name.clone()).collect();
        let name = name::new_name(&survivor, stems[i].as_deref(), &taken, &claimed_by_others, units, &touched);
        claimed.entry(name.clone()).or_insert(places);
        let mut members: Vec<Member> = vec![survivor.clone()];
        members.extend(merging.into_iter().filter(|m| m.key != survivor.key));
        let depends_on =
            detected.callees(&members).into_iter().filter_map(|k| index_of_member.get(&k).copied()).filter(|j| *j != i).collect();
        merge_of_candidate.insert(i, out.merges.len());
        out.merges.push(build(units, detected, cx.decisions, candidate, members, name, depends_on));
    }
    // Dependencies were found as candidate indexes: make them merge indexes.
    for merge in out.merges.iter_mut() {
        merge.depends_on = merge.depends_on.iter().filter_map(|c| merge_of_candidate.get(c).copied()).collect();
    }
}

/// A member of a per-space duplicate group that takes `__constant` pointers:
/// it joins the merge only if the tables they receive move to `__global`.
#[derive(Debug, Clone)]
pub struct ConstantTwin {
    pub key: DeclKey,
    /// `norm2_c` (a.cl:7)
    pub cited: String,
    /// The other members: `norm2_g`, `norm2_l`.
    pub others: String,
}

/// The `__constant` members of the batch's duplicate groups that pass the
/// batch-wide checks (so moving their tables can let them merge).
pub fn constant_twins(units: &[Unit], detected: &Detected, root: &Path, withdrawn: &Withdrawn) -> Vec<ConstantTwin> {
    let mut out = Vec::new();
    for group in &detected.groups {
        let signatures = detected.signatures(group);
        // Cheap first: only groups with a __constant member matter here.
        if signatures.len() < 2 || !signatures.iter().any(|s| s.contains(&Some(Space::Constant))) {
            continue;
        }
        let members = detected.members_of(units, group);
        let seeing = detected.index.seeing(group);
        if refuse::batch_refusal(units, detected, group, &members, &seeing, root, withdrawn).1.is_some() {
            continue;
        }
        for m in &members {
            if detected.signature(&m.key).is_some_and(|s| s.contains(&Some(Space::Constant))) {
                let others = members.iter().filter(|o| o.key != m.key).map(|o| format!("`{}`", o.name)).collect::<Vec<_>>();
                out.push(ConstantTwin { key: m.key, cited: m.cited(), others: others.join(", ") });
            }
        }
    }
    out
}

/// A group that passed the batch-wide checks, with the members that cannot join it.
struct Candidate {
    members: Vec<Member>,
    kept: Vec<Kept>,
    /// Units defining a member.
    seeing: BTreeSet<UnitId>,
    /// Other units with a prototype of a member (from a shared header): edited and verified too.
    declaring: BTreeSet<UnitId>,
}

impl Candidate {
    fn merging(&self) -> Vec<Member> {
        self.members.iter().filter(|m| !self.kept.iter().any(|k| k.member.key == m.key)).cloned().collect()
    }

    /// The group, not merged because at most one member could: `calls-unmerged`
    /// when a member stays for calling a group that does not merge, else `pinned`.
    fn unmerged_for_kept(&self) -> Unmerged {
        let detail = self.kept.iter().map(|k| format!("{} {}", k.member.cited(), k.why)).collect::<Vec<_>>().join("; ");
        let reason = if self.kept.iter().any(|k| k.code == Code::CallsUnmerged) { Code::CallsUnmerged } else { Code::Pinned };
        Unmerged { members: self.members.clone(), reason, detail }
    }
}

/// The merge's fix: edits in every unit seeing the group, and the keys of the
/// members' generic declarations (their fixes stand or fall with it).
fn build(
    units: &[Unit],
    detected: &Detected,
    decisions: &[Decisions],
    candidate: &Candidate,
    members: Vec<Member>,
    name: String,
    depends_on: BTreeSet<usize>,
) -> Merge {
    let keys: BTreeSet<&DeclKey> = members.iter().map(|m| &m.key).collect();
    let links: BTreeSet<&str> = members.iter().map(|m| m.link_name.as_str()).collect();
    let mut decl_keys = Vec::new();
    for &u in &candidate.seeing {
        // The members this unit defines, by link name: looked up per member, not per definition
        // of the unit (a header's helpers are in every unit including it).
        let defined_here: BTreeSet<&str> =
            keys.iter().filter_map(|k| detected.views[u].defs.get(*k)).map(|d| d.function.link_name.as_str()).collect();
        for d in &decisions[u] {
            if defined_here.contains(d.link_name.as_str())
                && links.contains(d.link_name.as_str())
                && matches!(d.decision, Decision::Generic { .. })
            {
                decl_keys.push(units[u].key(d.decl.pos.file, d.decl.pos.offset));
            }
        }
    }
    let touched: BTreeSet<UnitId> = candidate.seeing.union(&candidate.declaring).copied().collect();
    let MergeEdits { fix, files } = edits::fix(units, &touched, &members, &candidate.kept, &name);
    Merge { members, kept: candidate.kept.clone(), name, fix, units: touched, decl_keys, depends_on, files }
}

/// What `clasp rule` prints for this rule.
pub const DOC: Doc = Doc {
    summary: "Helpers written once per address space become one generic helper.",
    what: "Finds helper definitions, across the batch, written once per address space, keeps one of them (the \
survivor) as a generic helper, deletes the others and renames every call. Duplicates: helper definitions (not kernels, not \
produced by a macro, under the edit root) whose tokens as written are the same except for the qualifiers the generic rewrite \
removes (first level of each pointer parameter, local and return; keyword or qualifier macro), their own names and calls to \
helpers that are duplicates of each other (`mid_g` -> `leaf_g` and `mid_l` -> `leaf_l` merge both groups). Comments and \
blanks do not count; any other token does, so a near-duplicate stays. A call to a user function outside the group compares by \
its IR name (two overloads of one name differ), a builtin by its name (`vload4` of a `__global` and of a `__local` pointer is \
one generic builtin in 2.0). A helper using a macro the unit defines twice with different bodies, directly or through other \
macros, is never compared (two headers each defining `GLOBAL_AS __global` alike do not stop it). Which declaration carries \
which qualifier counts (`copy_pg(__global d, s)` and `copy_gp(d, __global s)` are per-space duplicates); copies with the same \
qualifiers are not, and are left alone. Each unit compares the definitions it sees; a group in a shared header merges only if \
every unit seeing it agrees. Groups found by different units join, then split into families, each merged on its own: at most \
one member per qualifier signature, and a member every unit seeing the family sees. Copies pair closest first: in the same \
file, then by the longest name they share (`rows_sum_g` with `rows_sum_l`, not `cols_sum_l`); copies in different files whose \
names share nothing never pair (a file's own `accum_g`/`accum_l` stay apart from a header's identical `sum_g`/`sum_l`; of \
`peak_g`, `peak2_g` and `peak2_l` only the `peak2` pair merges).\n\nThe members that merge are those whose qualified pointers \
all become generic in every unit seeing them; a `__constant` member (unless its tables can move: `constant-to-global`), one \
pinned by a builtin, one that would lose `const`, or one calling into a group that does not merge stays as its own function, \
with why, while the others merge. The survivor is the first member (file, then position) that every unit seeing the group \
defines, declared there before every function calling a member (so two headers' copies merge into the one every program \
includes). Its name: an overload set keeps its name; else the words the names share at start and end (`row_sum_g`, `row_sum_l` -> \
`row_sum`; `load_global_f`, `load_local_f` -> `load_f`; `copyGlobal`, `copyLocal` -> `copy`; `gscale`, `lscale` -> `scale`) when no \
unit seeing the group writes that identifier anywhere (code, macros, skipped text), it is no keyword, OpenCL builtin or C \
library function (clang, asked as OpenCL C and as C, finds it undeclared and no library function, so `dot_g`, `dot_l` keep `dot_g`: `dot` and `memset` are \
taken), and no other merge took it; else the survivor's own name. The other definitions and their prototypes are deleted with \
their indentation, `;`, line end, a trailing `// comment`, the comment lines right above (they describe that copy) and one \
blank line they leave. A declaration includes the macro uses before it (and after a prototype: `void f(int) ATTR;`) that \
expand to nothing in the analysed build (`NOINLINE` under `#define NOINLINE`), which are deleted with it and count in the \
comparison, so the merge comes out the same whichever of those builds clasp analyses.\n\nReports: `--explain` says `not \
merged <code>` for a group left alone, `--json` lists `merges` (name, place, members, members kept with why, verified) and \
`unmerged` (members, reason, detail), and the summary counts groups merged and definitions deleted.",
    why: "1.x has no generic pointers, so helpers were copied once per address space (`sum_g`/`sum_l`/`sum_p`, \
`copyGlobal`/`copyLocal`, overload sets `f(__global T *)` beside `f(__local T *)`). In 2.0 one generic definition serves \
global, local and private memory, and the copies are only code to keep in step.",
    example: r#"// before
float row_sum_g(__global const float *r, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
        s += r[i];
    return s;
}

float row_sum_l(__local const float *r, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
        s += r[i];
    return s;
}
// ... row_sum_g(in, n) + row_sum_l(tile, n) ...

// after
float row_sum(const float *r, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
        s += r[i];
    return s;
}
// ... row_sum(in, n) + row_sum(tile, n) ..."#,
    refuses: "A group is not merged (`not merged <code>`) when a member's address is taken (`address-taken`); it is \
named in a macro body or called through a macro (`macro`); it is named in code `#if` skips (`skipped-if`); a build sees the \
copies differ or defines another function of a member's name (`configuration`); it is called from outside the edit root \
(`outside-root`); a unit calls a member it does not define (`declared-elsewhere`); fewer than two members can become generic \
(`pinned`); its members call a group that does not merge (`calls-unmerged`); no member can be kept (`no-survivor`); or \
verification withdrew the merge (its withdrawal code). Units that only declare a member (a shared header's prototypes) are edited in step and verified too. `--no-merge` \
(or `--ignore merge-duplicates`) turns the rule off.",
    safety: verified!(
        "A merge is one change set with its members' generic rewrites and the merges it calls into: recompiled, and every \
kernel of every unit that sees a member proven equivalent. When verification withdraws it, clasp plans again without that merge \
(the members' own generic rewrites may then stand; when merges call into each other, the callers go first) and verifies again; \
checks whose texts did not change are not run twice."
    ),
};
