//! Comparing two compilations' canonical kernels: kernel by kernel, by
//! name, the first differing line shown, and more flat (generic) memory
//! accesses in the result counted as a regression.

use std::collections::BTreeMap;

use serde::Serialize;

use super::KernelBody;

/// What the equivalence check found for one unit.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Equivalence {
    /// Kernels whose optimised bodies are the same.
    pub equal: Vec<String>,
    /// Kernels that differ, with the first differing lines (original, result).
    pub different: Vec<KernelDifference>,
    /// Kernels whose result has more flat (generic) memory accesses than the original.
    pub flat_regressions: Vec<FlatRegression>,
    /// Changed functions proven on their own and called opaquely by the
    /// kernels compared (`functions.rs`); empty when `whole_kernels`.
    pub proven_functions: Vec<String>,
    /// The verdict is the comparison of whole kernels, every helper inlined:
    /// comparing them with helpers kept out found a difference.
    pub whole_kernels: bool,
    /// The changed functions the first comparison proved on their own,
    /// whatever the final verdict: when kernels differ, settling tries the
    /// change sets touching only these before the others.
    #[serde(skip)]
    pub proven_alone: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct KernelDifference {
    pub kernel: String,
    pub original: String,
    pub migrated: String,
}

/// A kernel whose result has more accesses through flat pointers than its
/// original (the lint `residual-generic`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct FlatRegression {
    pub kernel: String,
    pub before: usize,
    pub after: usize,
    /// The result's flat accesses by kind and cause (`FlatAccesses::describe`).
    pub detail: String,
}

/// A canonical line with its value numbers blanked: `%v12` reads `%v`.
fn without_value_numbers(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '%' && chars.peek() == Some(&'v') {
            out.push(chars.next().unwrap_or('v'));
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
        }
    }
    out
}

/// Kernel by kernel, by name; a kernel missing on either side differs.
pub fn compare(before: &[KernelBody], after: &[KernelBody]) -> Equivalence {
    let mut result = Equivalence::default();
    let after_by_name: BTreeMap<&str, &KernelBody> = after.iter().map(|k| (k.name.as_str(), k)).collect();
    for original in before {
        let Some(migrated) = after_by_name.get(original.name.as_str()) else {
            result.different.push(KernelDifference {
                kernel: original.name.clone(),
                original: "(defined)".into(),
                migrated: "(missing)".into(),
            });
            continue;
        };
        if migrated.flat.total() > original.flat.total() {
            result.flat_regressions.push(FlatRegression {
                kernel: original.name.clone(),
                before: original.flat.total(),
                after: migrated.flat.total(),
                detail: migrated.flat.describe(),
            });
        }
        if original.lines == migrated.lines {
            result.equal.push(original.name.clone());
            continue;
        }
        let pairs = || {
            original
                .lines
                .iter()
                .map(Some)
                .chain(std::iter::repeat(None))
                .zip(migrated.lines.iter().map(Some).chain(std::iter::repeat(None)))
                .take(original.lines.len().max(migrated.lines.len()))
        };
        // The first pair that differs in more than value numbers (an extra instruction
        // renumbers every later value: the line to show is the extra one, not the first
        // `phi` that names a later value), else the first that differs at all.
        let unnumbered = |line: Option<&String>| line.map(|l| without_value_numbers(l));
        let (a, b) = pairs()
            .find(|(a, b)| unnumbered(*a) != unnumbered(*b))
            .or_else(|| pairs().find(|(a, b)| a != b))
            .unwrap_or((None, None));
        let show = |line: Option<&String>| line.cloned().unwrap_or_else(|| "(end)".into());
        result.different.push(KernelDifference { kernel: original.name.clone(), original: show(a), migrated: show(b) });
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The difference shown is the first line that differs in more than value
    /// numbers: an inserted instruction, not the `phi` renumbered by it.
    #[test]
    fn the_difference_shown_skips_renumbering() {
        let body = |lines: &[&str]| KernelBody {
            name: "k".into(),
            lines: lines.iter().map(|l| l.to_string()).collect(),
            flat: Default::default(),
        };
        let before = body(&["param ptr", "%v1 = phi i32 [ %v3, %b1 ]", "%v2 = load i32, ptr %a0", "%v3 = add i32 %v2, 1"]);
        let after = body(&[
            "param ptr",
            "%v1 = phi i32 [ %v4, %b1 ]",
            "%v2 = load i32, ptr %a0",
            "%v3 = addrspacecast ptr addrspace(3) %a1 to ptr",
            "%v4 = add i32 %v2, 1",
        ]);
        let found = compare(std::slice::from_ref(&before), &[after]);
        let d = &found.different[0];
        assert_eq!(
            (d.original.as_str(), d.migrated.as_str()),
            ("%v3 = add i32 %v2, 1", "%v3 = addrspacecast ptr addrspace(3) %a1 to ptr")
        );
        // Lines that differ only in numbering still differ (never equal by masking).
        let renumbered = body(&["param ptr", "%v1 = phi i32 [ %v2, %b1 ]", "%v2 = load i32, ptr %a0", "%v3 = add i32 %v2, 1"]);
        let found = compare(&[before], &[renumbered]);
        assert_eq!(found.different[0].migrated, "%v1 = phi i32 [ %v2, %b1 ]");
    }
}
